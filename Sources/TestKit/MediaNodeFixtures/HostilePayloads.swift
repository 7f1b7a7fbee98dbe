import Playback
import RemoteCommands

/// Command payloads an attacker on the broker could send, for the fuzz test: for every command of the
/// command table and each of the fields it declares, valid values and hostile ones, whole payloads that are
/// not JSON objects at all, and valid commands mixed in so the hostile ones meet the node in every state.
///
/// Deterministic for a seed (the shuffle's SplitMix64), so a failure can be replayed from the seed and the
/// index it prints.
public struct HostilePayloads: Sendable {
    /// One request: the command name (the last topic level) and the exact payload bytes.
    public struct Request: Sendable, CustomStringConvertible {
        public var command: String
        public var payload: [UInt8]
        /// True when the contract says this request must be refused (`commandFailed` with a message).
        public var mustBeRefused: Bool

        public var description: String {
            let text = String(decoding: payload.prefix(300), as: UTF8.self)
            return "\(command) \(payload.count) bytes: \(text)\(payload.count > 300 ? "..." : "")"
        }
    }

    /// The commands to fuzz with the fields each declares: the node's command table (`CommandTable.commands`),
    /// so a command is fuzzed from the moment it is in the table.
    let commands: [(name: String, fields: [CommandField])]

    /// Numbers as JSON text, so values a double cannot hold (1e999, 400 digits) arrive as written.
    static let hostileNumbers = [
        "0", "-0", "1e300", "-1e300", "1e999", "-1e999", "4.9e-324", "9223372036854775808", "-9223372036854775809",
        "18446744073709551616", String(repeating: "9", count: 400), "123456789012345678901234567890.5", "-1",
        "0.5", "1e-300", "2147483648", "999999999", "1000000000", "1E+2", "-0.0",
    ]
    static let hostileStrings = [
        #""""#, "\"" + String(repeating: "a", count: 5_000) + "\"", #""\u0000""#, #""a\u0000b""#, #""\ud800""#,
        #""\udc00x""#, #""\ud83c\udfb5 🎵""#, #""'; DROP TABLE items; --""#, #""../../../../etc/passwd""#,
        #""%s%n%x""#, #""track:""#, #""section:library""#, #""status:loading""#, #""\n\r\t""#,
    ]
    static let wrongTypes = ["true", "false", "null", "[]", "{}", #""1""#, "1", "[1,2]", #"{"a":1}"#]

    private var random: SeededGenerator

    public init(seed: UInt64, commands: [any AnyRemoteCommand]) {
        random = SeededGenerator(seed: seed)
        self.commands = commands.map { ($0.name, $0.fields) }
    }

    /// Requests a node in a known state can take, to move it between playing, paused, interrupted and
    /// stopped. `indexPath` names a playable item of the node's tree.
    public static func stateChanges(playablePath: [Int]) -> [(String, String)] {
        let path = "[" + playablePath.map(String.init).joined(separator: ",") + "]"
        return [
            ("playItem", #"{"indexPath":\#(path)}"#), ("play", ""), ("pause", ""), ("togglePlayPause", ""),
            ("stop", ""), ("nextTrack", ""), ("previousTrack", ""), (("skipForward"), #"{"interval":15}"#),
            ("skipBackward", #"{"interval":5}"#), ("changePlaybackPosition", #"{"positionTime":1}"#),
            ("interrupt", #"{"type":"begin"}"#), ("interrupt", #"{"type":"begin","duck":true}"#),
            ("interrupt", #"{"type":"end","shouldResume":true}"#), ("changePlaybackRate", #"{"playbackRate":1.5}"#),
            ("changePlaybackRate", #"{"playbackRate":1}"#), ("changeRepeatMode", #"{"repeatType":"all"}"#),
            ("changeShuffleMode", #"{"shuffleType":"items"}"#), ("browse", #"{"indexPath":[0]}"#),
        ]
    }

    /// The next request: about a quarter valid state changes, the rest hostile.
    public mutating func next(playablePath: [Int]) -> Request {
        let roll = random.nextIndex(below: 100)
        if roll < 25 {
            let changes = Self.stateChanges(playablePath: playablePath)
            let (command, payload) = changes[random.nextIndex(below: changes.count)]
            return Request(command: command, payload: Array(payload.utf8), mustBeRefused: false)
        }
        if roll < 40 { return wholePayload() }
        return hostileFields()
    }

    // MARK: - Hostile fields of a known command

    mutating func hostileFields() -> Request {
        let (name, fields) = commands[random.nextIndex(below: commands.count)]
        var members: [String] = []
        if random.nextIndex(below: 3) == 0 { members.append(#""id":\#(idValue())"#) }
        for field in fields where random.nextIndex(below: 4) != 0 {
            members.append("\"\(field.name)\":\(value(for: field.kind))")
        }
        if random.nextIndex(below: 8) == 0 { members.append(#""unknownExtra":\#(Self.hostileNumbers.randomElement(&random))"#) }
        return Request(command: name, payload: Array(("{" + members.joined(separator: ",") + "}").utf8), mustBeRefused: false)
    }

    mutating func idValue() -> String {
        [#""fuzz""#, "42", "1e300", "9007199254740993", "-1", "true", "[]", #""""#][random.nextIndex(below: 8)]
    }

    mutating func value(for field: CommandField.Kind) -> String {
        let roll = random.nextIndex(below: 10)
        if roll == 0 { return Self.wrongTypes.randomElement(&random) }
        if roll == 1 { return deeplyNested() }
        switch field {
        case .number: return Self.hostileNumbers.randomElement(&random)
        case .string: return Self.hostileStrings.randomElement(&random)
        case .bool: return ["true", "false", #""yes""#, "1", "0"][random.nextIndex(below: 5)]
        case let .choice(values):
            let valid = values.map { "\"\($0)\"" }
            return (valid + [#""""#, #""OFF""#, #""toggle""#] + Self.hostileStrings.prefix(3)).randomElement(&random)
        case let .numberOr(words):
            return (words.map { "\"\($0)\"" } + Self.hostileNumbers + [#""NEXT""#]).randomElement(&random)
        case .indexPath: return array(of: Self.hostileNumbers + ["0", "1", "2"])
        case .strings: return array(of: Self.hostileStrings + [#""track:x""#])
        }
    }

    mutating func array(of elements: [String]) -> String {
        let count = [0, 1, 3, 5_000][random.nextIndex(below: 4)]
        var items: [String] = []
        items.reserveCapacity(count)
        for _ in 0..<count { items.append(elements.randomElement(&random)) }
        return "[" + items.joined(separator: ",") + "]"
    }

    mutating func deeplyNested() -> String {
        let depth = [64, 600, 30_000][random.nextIndex(below: 3)]
        return String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
    }

    // MARK: - Whole payloads

    mutating func wholePayload() -> Request {
        let known = commands[random.nextIndex(below: commands.count)].name
        let unknown = ["", "PLAY", "play ", "nosuchcommand", "dröp", String(repeating: "x", count: 300), "..", "%00"]
        switch random.nextIndex(below: 9) {
        case 0:
            return Request(command: unknown.randomElement(&random), payload: [], mustBeRefused: true)
        case 1:
            let text = ["[]", "1", #""x""#, "null", "true", "[{}]", "1e999"].randomElement(&random)
            return Request(command: known, payload: Array(text.utf8), mustBeRefused: true)
        case 2:
            let text = ["{", #"{"a":}"#, #"{"a":1,,}"#, "{'a':1}", #"{"a":1}x"#, #"{"a":"\x"}"#, "}{", #"{"a":01}"#,
                        #"{"a":.5}"#, #"{"a":1e}"#, #"{"a":"unterminated"#].randomElement(&random)
            return Request(command: known, payload: Array(text.utf8), mustBeRefused: true)
        case 3:
            let invalid: [[UInt8]] = [[0xFF, 0xFE], [0x7B, 0xC0, 0xAF, 0x7D], [0x7B, 0xED, 0xA0, 0x80, 0x7D],
                                      Array(#"{"identifier":""#.utf8) + [0xF8, 0x88, 0x80, 0x80, 0x80] + Array(#""}"#.utf8)]
            return Request(command: known, payload: invalid.randomElement(&random), mustBeRefused: true)
        case 4:
            let size = 65_537 + random.nextIndex(below: 40_000)
            let filler = #"{"pad":""# + String(repeating: "z", count: size) + #""}"#
            return Request(command: known, payload: Array(filler.utf8), mustBeRefused: true)
        case 5:
            return Request(command: known, payload: Array(deeplyNested().utf8), mustBeRefused: true)
        case 6:
            return Request(command: known, payload: [0x00, 0x00, 0x00], mustBeRefused: true)
        case 7:
            return Request(command: unknown.randomElement(&random), payload: Array(#"{"id":"u"}"#.utf8), mustBeRefused: true)
        default:
            return Request(command: known, payload: Array(#"{"id":{"nested":true}}"#.utf8), mustBeRefused: true)
        }
    }
}

extension Array {
    fileprivate func randomElement(_ random: inout SeededGenerator) -> Element { self[random.nextIndex(below: count)] }
}
