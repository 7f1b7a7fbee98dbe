import MediaJSON
import RemoteCommands
import Synchronization
import Testing

/// Every command's payload rules, one table row per command, checked through the center end to end.
@Suite("Command payloads")
struct RemoteCommandPayloadTests {
    struct Row: Sendable, CustomTestStringConvertible {
        var command: RemoteCommand
        /// Payload text and the arguments it must become.
        var valid: [(String, CommandArguments)]
        /// Payload text and a fragment of the message that must say what was wrong.
        var invalid: [(String, String)]
        var testDescription: String { command.rawValue }
    }

    /// The table. An exhaustive switch, so a new command does not compile until it has its row.
    static func row(_ command: RemoteCommand) -> Row {
        let notObject = ("[1]", "must be a JSON object")
        switch command {
        case .play, .pause, .stop, .togglePlayPause, .nextTrack, .previousTrack:
            return Row(command: command, valid: [("", .none), ("{}", .none), (#"{"id":"7","extra":1}"#, .none)],
                       invalid: [notObject, ("{", "malformed JSON")])
        case .skipForward, .skipBackward:
            return Row(command: command, valid: [("", .skip(interval: nil)), (#"{"interval":30}"#, .skip(interval: 30))],
                       invalid: [(#"{"interval":0}"#, "greater than 0"), (#"{"interval":"10"}"#, "must be a number"),
                                 (#"{"interval":1e300}"#, "at most 1000000000 seconds, got 1e+300"),
                                 (#"{"interval":-1e300}"#, "greater than 0, got -1e+300")])
        case .seekForward, .seekBackward:
            return Row(command: command, valid: [(#"{"type":"beginSeeking"}"#, .seek(.beginSeeking)),
                                                 (#"{"type":"endSeeking"}"#, .seek(.endSeeking))],
                       invalid: [("", "missing field 'type'"), (#"{"type":"begin"}"#, "must be one of")])
        case .changePlaybackPosition:
            return Row(command: command, valid: [
                (#"{"positionTime":12.5}"#, .changePlaybackPosition(positionTime: 12.5, identifier: nil)),
                (#"{"positionTime":0,"identifier":"t:1"}"#, .changePlaybackPosition(positionTime: 0, identifier: "t:1")),
            ], invalid: [("{}", "missing field 'positionTime'"), (#"{"positionTime":-1}"#, "must not be negative"),
                         (#"{"positionTime":3,"identifier":4}"#, "'identifier' must be a string"),
                         (#"{"positionTime":1e300}"#, "got 1e+300"),
                         (#"{"positionTime":18446744073709551616}"#, "got 1.8446744073709552e+19")])
        case .changePlaybackRate:
            return Row(command: command, valid: [(#"{"playbackRate":0.75}"#, .changePlaybackRate(.rate(0.75))),
                                                 (#"{"playbackRate":"next"}"#, .changePlaybackRate(.next))],
                       invalid: [(#"{"playbackRate":3}"#, "not one of the player's rates"),
                                 (#"{"playbackRate":0}"#, "greater than 0"),
                                 (#"{"playbackRate":"faster"}"#, "a number or \"next\""),
                                 (#"{"playbackRate":1e300}"#, "playbackRate 1e+300 is not one of"),
                                 (#"{"playbackRate":18446744073709551616}"#, "playbackRate 1.8446744073709552e+19 is not"),
                                 (#"{"playbackRate":123456789012345678901234567890.5}"#, "1.2345678901234568e+29"),
                                 (#"{"playbackRate":-1e300}"#, "greater than 0, got -1e+300")])
        case .changeRepeatMode:
            return Row(command: command, valid: RepeatType.allCases.map {
                (#"{"repeatType":"\#($0.rawValue)"}"#, .changeRepeatMode($0))
            }, invalid: [(#"{"repeatType":"toggle"}"#, "must be one of"), ("{}", "missing field 'repeatType'")])
        case .changeShuffleMode:
            return Row(command: command, valid: ShuffleType.allCases.map {
                (#"{"shuffleType":"\#($0.rawValue)"}"#, .changeShuffleMode($0))
            }, invalid: [(#"{"shuffleType":true}"#, "must be a string"), ("{}", "missing field 'shuffleType'")])
        case .rating:
            return Row(command: command, valid: [(#"{"rating":0}"#, .rating(0)), (#"{"rating":4.5}"#, .rating(4.5)),
                                                 (#"{"rating":5}"#, .rating(5))],
                       invalid: [(#"{"rating":5.5}"#, "within 0...5, got 5.5"), (#"{"rating":-1}"#, "within 0...5"),
                                 (#"{"rating":1e300}"#, "got 1e+300"), (#"{"rating":-1e300}"#, "got -1e+300"),
                                 (#"{"rating":9223372036854775808}"#, "got 9.223372036854776e+18")])
        case .like, .dislike, .bookmark:
            return Row(command: command, valid: [("", .feedback(isNegative: false)),
                                                 (#"{"isNegative":true}"#, .feedback(isNegative: true))],
                       invalid: [(#"{"isNegative":"yes"}"#, "must be a boolean")])
        case .enableLanguageOption, .disableLanguageOption:
            return Row(command: command, valid: [
                (#"{"languageTag":"de-AT","type":"audible"}"#, .languageOption(languageTag: "de-AT", type: .audible)),
                (#"{"languageTag":"en","type":"legible"}"#, .languageOption(languageTag: "en", type: .legible)),
            ], invalid: [(#"{"languageTag":"","type":"audible"}"#, "must not be empty"),
                         (#"{"languageTag":"en"}"#, "missing field 'type'")])
        case .playItem:
            return Row(command: command, valid: [(#"{"identifier":"t:1"}"#, .playItem(.identifier("t:1"))),
                                                 (#"{"indexPath":[0,2]}"#, .playItem(.indexPath([0, 2])))],
                       invalid: [("{}", "needs 'identifier' or 'indexPath'"),
                                 (#"{"indexPath":[0,-1]}"#, "whole numbers of at least 0"),
                                 (#"{"indexPath":[1.5]}"#, "whole numbers"),
                                 (#"{"identifier":"t:1","indexPath":"x"}"#, "'indexPath' must be an array")])
        case .prepareQueue:
            return Row(command: command, valid: [(#"{"identifiers":["a","b"]}"#, .prepareQueue(identifiers: ["a", "b"])),
                                                 (#"{"identifiers":[]}"#, .prepareQueue(identifiers: []))],
                       invalid: [(#"{"identifiers":["a",1]}"#, "array of strings"),
                                 (#"{"identifiers":"a"}"#, "must be an array of strings, got a string")])
        case .browse:
            return Row(command: command, valid: [
                ("", .browse(indexPath: [], offset: nil, limit: nil)),
                (#"{"indexPath":[1],"offset":20,"limit":10}"#, .browse(indexPath: [1], offset: 20, limit: 10)),
            ], invalid: [(#"{"offset":-1}"#, "'offset' must be a whole number"),
                         (#"{"limit":2.5}"#, "'limit' must be a whole number"),
                         (#"{"limit":1e300}"#, "got 1e+300")])
        case .contentItem:
            return Row(command: command, valid: [(#"{"identifier":"t:1"}"#, .contentItem(identifier: "t:1"))],
                       invalid: [("{}", "missing field 'identifier'")])
        case .search:
            let longest = String(repeating: "é", count: 200)
            return Row(command: command, valid: [
                (#"{"query":"sty"}"#, .search(query: "sty", limit: 20)),
                (#"{"query":"NEAR \"x\" -(a*)","limit":5}"#, .search(query: #"NEAR "x" -(a*)"#, limit: 5)),
                (#"{"query":"\#(longest)","limit":0}"#, .search(query: longest, limit: 0)),
            ], invalid: [("{}", "missing field 'query'"), (#"{"query":""}"#, "'query' must not be empty"),
                         (#"{"query":" \t "}"#, "'query' must not be empty"),
                         (#"{"query":"\#(longest)e"}"#, "'query' must be at most 200 characters, got 201"),
                         (#"{"query":5}"#, "'query' must be a string, got a number"),
                         (#"{"query":"a","limit":-1}"#, "'limit' must be a whole number"),
                         (#"{"query":"a","limit":"5"}"#, "'limit' must be a number")])
        case .interrupt:
            return Row(command: command, valid: [
                (#"{"type":"begin"}"#, .interrupt(.begin(duck: false))),
                (#"{"type":"begin","duck":true}"#, .interrupt(.begin(duck: true))),
                (#"{"type":"end","shouldResume":true}"#, .interrupt(.end(shouldResume: true))),
            ], invalid: [(#"{"type":"pause"}"#, "\"begin\" or \"end\""), (#"{"type":"end","shouldResume":1}"#, "boolean"),
                         // Each field is checked whatever `type` says.
                         (#"{"type":"begin","shouldResume":"yes"}"#, "'shouldResume' must be a boolean"),
                         (#"{"type":"end","duck":"no"}"#, "'duck' must be a boolean")])
        }
    }

    static let rows = RemoteCommand.allCases.map(row)

    /// The arguments every handler received, in order.
    final class Received: Sendable {
        let arguments = Mutex<[CommandArguments]>([])
        func withLock<T>(_ body: (inout [CommandArguments]) -> T) -> T { arguments.withLock { body(&$0) } }
    }

    /// A center with a recording handler for every command.
    static func recordingCenter() -> (RemoteCommandCenter, Received) {
        let center = RemoteCommandCenter()
        let received = Received()
        for command in RemoteCommand.allCases {
            center.addHandler(for: command) { event in
                received.withLock { $0.append(event.arguments) }
                return .success
            }
        }
        return (center, received)
    }

    @Test("every command has a row with valid and invalid payloads")
    func tableCoversEveryCommand() {
        #expect(Self.rows.map(\.command) == RemoteCommand.allCases)
        for row in Self.rows {
            #expect(!row.valid.isEmpty && !row.invalid.isEmpty, "\(row.command.rawValue)")
        }
    }

    @Test("valid payloads reach the handler as typed arguments", arguments: rows)
    func validPayloads(_ row: Row) async {
        let (center, received) = Self.recordingCenter()
        for (payload, expected) in row.valid {
            let reply = await center.handle(name: row.command.rawValue, payload: Array(payload.utf8))
            #expect(reply.result.status == .success, "\(payload): \(reply.result.message ?? "")")
            #expect(received.withLock { $0.popLast() } == expected, "\(payload)")
        }
    }

    @Test("invalid payloads are refused with commandFailed saying why", arguments: rows)
    func invalidPayloads(_ row: Row) async {
        let (center, received) = Self.recordingCenter()
        for (payload, fragment) in row.invalid {
            let reply = await center.handle(name: row.command.rawValue, payload: Array(payload.utf8))
            #expect(reply.result.status == .commandFailed, "\(payload)")
            #expect(reply.result.message?.contains(fragment) == true, "\(payload): \(reply.result.message ?? "nil")")
            #expect(reply.command == row.command.rawValue)
        }
        #expect(received.withLock { $0.isEmpty }, "no handler ran for a refused request")
    }

    @Test("an unknown command name is answered too")
    func unknownCommand() async {
        let (center, _) = Self.recordingCenter()
        let reply = await center.handle(name: "launchRocket", payload: Array(#"{"id":"x"}"#.utf8))
        #expect(reply.result.status == .commandFailed)
        #expect(reply.result.message == "unknown command 'launchRocket'")
        #expect(reply.id == "x")
        #expect(reply.command == "launchRocket")
    }
}
