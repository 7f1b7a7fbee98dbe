import DBusBinding
import MPRIS
import Playback

/// Random MPRIS calls, hostile and not: every method and property of the three interfaces with values at
/// and past their edges (offsets of ±2^63 µs, NaN rates, unknown and malformed track ids, long and empty
/// strings), the wrong types and counts of arguments, and members and interfaces that do not exist.
struct MPRISCallGenerator {
    struct Call: Sendable {
        var interface: String
        var member: String
        var arguments: [DBusValue]
        var description: String { "\(interface).\(member)\(DBusValue.tuple(arguments).signature)" }
    }

    var random: SeededGenerator
    /// Track ids of the queue, so some calls name a real entry.
    let tracks: [String]
    /// Real files, so some OpenUri calls load a queue again (after a Stop).
    let files: [String]

    init(seed: UInt64, tracks: [String], files: [String]) {
        random = SeededGenerator(seed: seed)
        self.tracks = tracks
        self.files = files
    }

    mutating func next() -> Call {
        let player = MPRISNames.player, root = MPRISNames.root, trackList = MPRISNames.trackList
        let properties = MPRISNames.properties
        switch Int.random(in: 0..<100, using: &random) {
        case 0..<20:
            let member = ["Play", "Pause", "PlayPause", "Stop", "Next", "Previous"].randomElement(using: &random)!
            return Call(interface: player, member: member, arguments: [])
        case 20..<30: return Call(interface: player, member: "Seek", arguments: [.int64(offset())])
        case 30..<38: return Call(interface: player, member: "SetPosition", arguments: [.objectPath(track()), .int64(offset())])
        case 38..<42: return Call(interface: player, member: "OpenUri", arguments: [.string(uri())])
        case 42..<48: return Call(interface: trackList, member: "GoTo", arguments: [.objectPath(track())])
        case 48..<52:
            let count = Int.random(in: 0..<6, using: &random)
            return Call(interface: trackList, member: "GetTracksMetadata",
                        arguments: [.array(elementSignature: "o", (0..<count).map { _ in .objectPath(track()) })])
        case 52..<55:
            return Call(interface: trackList, member: ["AddTrack", "RemoveTrack"].randomElement(using: &random)!,
                        arguments: Bool.random(using: &random) ? [.string(uri()), .objectPath(track()), .bool(true)] : [.objectPath(track())])
        case 55..<58: return Call(interface: root, member: ["Raise", "Quit"].randomElement(using: &random)!, arguments: [])
        case 58..<72:
            let (interface, name, value) = write()
            return Call(interface: properties, member: "Set", arguments: [.string(interface), .string(name), .variant(value)])
        case 72..<80:
            let interface = [root, player, trackList, "org.example.Nothing", ""].randomElement(using: &random)!
            let name = ["Identity", "PlaybackStatus", "Position", "Metadata", "Tracks", "Volume", "Nope", ""].randomElement(using: &random)!
            return Bool.random(using: &random)
                ? Call(interface: properties, member: "Get", arguments: [.string(interface), .string(name)])
                : Call(interface: properties, member: "GetAll", arguments: [.string(interface)])
        case 80..<92:
            // A real member with arguments of the wrong types or number.
            let member = ["Seek", "SetPosition", "OpenUri", "Play", "GoTo", "GetTracksMetadata"].randomElement(using: &random)!
            let interface = ["GoTo", "GetTracksMetadata"].contains(member) ? trackList : player
            return Call(interface: interface, member: member, arguments: (0..<Int.random(in: 0..<4, using: &random)).map { _ in anyValue() })
        default:
            let interface = [player, root, trackList, "org.example.Nothing", "org.freedesktop.DBus.Peer"].randomElement(using: &random)!
            let member = ["Ping", "Explode", "play", "GetMachineId", "Introspect"].randomElement(using: &random)!
            return Call(interface: interface, member: member, arguments: [])
        }
    }

    private mutating func offset() -> Int64 {
        switch Int.random(in: 0..<6, using: &random) {
        case 0: .max
        case 1: .min
        case 2: 0
        case 3: Int64.random(in: -20_000_000...20_000_000, using: &random)
        case 4: Int64.random(in: -1_000_000_000_000_000...1_000_000_000_000_000, using: &random)
        default: Int64.random(in: .min ... .max, using: &random)
        }
    }

    private mutating func track() -> String {
        switch Int.random(in: 0..<6, using: &random) {
        case 0, 1: tracks.randomElement(using: &random) ?? "/"
        case 2: MPRISNames.noTrack
        case 3: "/org/medianode/MediaNode/Track/_zz"
        case 4: "/org/medianode/MediaNode/Track/" + String(repeating: "a", count: Int.random(in: 1...2000, using: &random))
        default: "/"
        }
    }

    private mutating func uri() -> String {
        if Bool.random(using: &random), let file = files.randomElement(using: &random) { return file }
        return [
            "", "file:///nonexistent.ogg", "http://127.0.0.1:1/dead.mp3", "https://[::1", "javascript:alert(1)",
            "file:///etc/passwd", "ftp://example.com/a", String(repeating: "x", count: 5000), "track:1", "\u{0}a",
        ].randomElement(using: &random)!
    }

    private mutating func write() -> (String, String, DBusValue) {
        let player = MPRISNames.player
        switch Int.random(in: 0..<8, using: &random) {
        case 0: return (player, "LoopStatus", .string(["None", "Track", "Playlist", "Sometimes", ""].randomElement(using: &random)!))
        case 1: return (player, "Shuffle", .bool(Bool.random(using: &random)))
        case 2: return (player, "Rate", .double([0, 1, 1.5, 0.75, -1, 1e308, .nan, .infinity].randomElement(using: &random)!))
        case 3: return (player, "Volume", .double([0, 0.5, 1, 1.5, -2, .nan, -.infinity, 1e-300].randomElement(using: &random)!))
        case 4: return (player, "PlaybackStatus", .string("Playing"))
        case 5: return (MPRISNames.root, "Identity", .string("x"))
        case 6: return (player, ["Volume", "Rate", "Shuffle", "LoopStatus"].randomElement(using: &random)!, anyValue())
        default: return ("org.example.Nothing", "Volume", .double(1))
        }
    }

    private mutating func anyValue() -> DBusValue {
        switch Int.random(in: 0..<8, using: &random) {
        case 0: .string("x")
        case 1: .int64(.max)
        case 2: .double(.nan)
        case 3: .bool(true)
        case 4: .objectPath("/a")
        case 5: .int32(-1)
        case 6: .array(elementSignature: "s", [.string("a")])
        default: .vardict(["k": .uint64(.max)])
        }
    }
}
