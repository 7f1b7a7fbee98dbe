import MediaJSON
import RemoteCommands
import Synchronization
import Testing

/// Every command's payload rules, one table row per command, checked through the center end to end.
@Suite("Command payloads")
struct RemoteCommandPayloadTests {
    struct Row: Sendable, CustomTestStringConvertible {
        var name: String
        var hasValidAndInvalid: Bool
        /// Sends every valid payload and checks the handler received the typed arguments it must become.
        var checkValid: @Sendable () async -> Void
        /// Sends every invalid payload and checks it is refused, saying what was wrong, with no handler run.
        var checkInvalid: @Sendable () async -> Void
        var testDescription: String { name }
    }

    /// A row: payload texts and the arguments they must become; payload texts and a fragment of the
    /// message that must say what was wrong.
    static func row<Arguments: Equatable>(
        _ command: RemoteCommand<Arguments>, valid: [(String, Arguments)], invalid: [(String, String)]
    ) -> Row {
        let (valid, invalid) = (Pairs(valid), Pairs(invalid))
        return Row(
            name: command.name, hasValidAndInvalid: !valid.pairs.isEmpty && !invalid.pairs.isEmpty,
            checkValid: {
                let center = RemoteCommandCenter()
                let received = Mutex<[Arguments]>([])
                center.addHandler(for: command) { arguments in received.withLock { $0.append(arguments) }; return .success }
                center.setNowPlaying(isItemLoaded: true, isLiveStream: false)
                for (payload, expected) in valid.pairs {
                    let reply = await center.handle(name: command.name, payload: Array(payload.utf8))
                    #expect(reply.result.status == .success, "\(command.name) \(payload): \(reply.result.message ?? "")")
                    #expect(received.withLock { $0.popLast() } == expected, "\(command.name) \(payload)")
                }
            },
            checkInvalid: {
                let center = RemoteCommandCenter()
                let ran = Mutex(false)
                center.addHandler(for: command) { _ in ran.withLock { $0 = true }; return .success }
                for (payload, fragment) in invalid.pairs {
                    let reply = await center.handle(name: command.name, payload: Array(payload.utf8))
                    #expect(reply.result.status == .commandFailed, "\(command.name) \(payload)")
                    #expect(reply.result.message?.contains(fragment) == true,
                            "\(command.name) \(payload): \(reply.result.message ?? "nil")")
                    #expect(reply.command == command.name)
                }
                #expect(!ran.withLock { $0 }, "no handler ran for a refused \(command.name)")
            })
    }

    /// Commands without fields: any object, or nothing, is accepted.
    static func plainRow(_ command: PlainCommand) -> Row {
        let valid = ["", "{}", #"{"id":"7","extra":1}"#]
        let invalid = Pairs([("[1]", "must be a JSON object"), ("{", "malformed JSON")])
        return Row(
            name: command.name, hasValidAndInvalid: true,
            checkValid: {
                let center = RemoteCommandCenter()
                let calls = Mutex(0)
                center.addHandler(for: command) { calls.withLock { $0 += 1 }; return .success }
                for payload in valid {
                    let reply = await center.handle(name: command.name, payload: Array(payload.utf8))
                    #expect(reply.result.status == .success, "\(command.name) \(payload)")
                }
                #expect(calls.withLock { $0 } == valid.count)
            },
            checkInvalid: {
                let center = RemoteCommandCenter()
                let calls = Mutex(0)
                center.addHandler(for: command) { calls.withLock { $0 += 1 }; return .success }
                for (payload, fragment) in invalid.pairs {
                    let reply = await center.handle(name: command.name, payload: Array(payload.utf8))
                    #expect(reply.result.status == .commandFailed && reply.result.message?.contains(fragment) == true,
                            "\(command.name) \(payload): \(reply.result.message ?? "nil")")
                }
                #expect(calls.withLock { $0 } == 0)
            })
    }

    static let rows: [Row] = [
        plainRow(.play), plainRow(.pause), plainRow(.stop), plainRow(.togglePlayPause), plainRow(.nextTrack),
        plainRow(.previousTrack),
    ] + [RemoteCommand<Double?>.skipForward, .skipBackward].map {
        row($0, valid: [("", nil), (#"{"interval":30}"#, 30)],
            invalid: [(#"{"interval":0}"#, "greater than 0"), (#"{"interval":"10"}"#, "must be a number"),
                      (#"{"interval":1e300}"#, "at most 1000000000 seconds, got 1e+300"),
                      (#"{"interval":-1e300}"#, "greater than 0, got -1e+300")])
    } + [RemoteCommand<SeekCommandType>.seekForward, .seekBackward].map {
        row($0, valid: [(#"{"type":"beginSeeking"}"#, .beginSeeking), (#"{"type":"endSeeking"}"#, .endSeeking)],
            invalid: [("", "missing field 'type'"), (#"{"type":"begin"}"#, "must be one of")])
    } + [
        row(.changePlaybackPosition, valid: [
            (#"{"positionTime":12.5}"#, PositionRequest(positionTime: 12.5)),
            (#"{"positionTime":0,"identifier":"t:1"}"#, PositionRequest(positionTime: 0, identifier: "t:1")),
        ], invalid: [("{}", "missing field 'positionTime'"), (#"{"positionTime":-1}"#, "must not be negative"),
                     (#"{"positionTime":3,"identifier":4}"#, "'identifier' must be a string"),
                     (#"{"positionTime":1e300}"#, "got 1e+300"),
                     (#"{"positionTime":18446744073709551616}"#, "got 1.8446744073709552e+19")]),
        row(.changePlaybackRate, valid: [(#"{"playbackRate":0.75}"#, .rate(0.75)), (#"{"playbackRate":"next"}"#, .next)],
            invalid: [(#"{"playbackRate":3}"#, "not one of the player's rates"),
                      (#"{"playbackRate":0}"#, "greater than 0"),
                      (#"{"playbackRate":"faster"}"#, "a number or \"next\""),
                      (#"{"playbackRate":1e300}"#, "playbackRate 1e+300 is not one of"),
                      (#"{"playbackRate":18446744073709551616}"#, "playbackRate 1.8446744073709552e+19 is not"),
                      (#"{"playbackRate":123456789012345678901234567890.5}"#, "1.2345678901234568e+29"),
                      (#"{"playbackRate":-1e300}"#, "greater than 0, got -1e+300")]),
        row(.changeRepeatMode, valid: RepeatType.allCases.map { (#"{"repeatType":"\#($0.rawValue)"}"#, $0) },
            invalid: [(#"{"repeatType":"toggle"}"#, "must be one of"), ("{}", "missing field 'repeatType'")]),
        row(.changeShuffleMode, valid: ShuffleType.allCases.map { (#"{"shuffleType":"\#($0.rawValue)"}"#, $0) },
            invalid: [(#"{"shuffleType":true}"#, "must be a string"), ("{}", "missing field 'shuffleType'")]),
        row(.rating, valid: [(#"{"rating":0}"#, 0), (#"{"rating":4.5}"#, 4.5), (#"{"rating":5}"#, 5)],
            invalid: [(#"{"rating":5.5}"#, "within 0...5, got 5.5"), (#"{"rating":-1}"#, "within 0...5"),
                      (#"{"rating":1e300}"#, "got 1e+300"), (#"{"rating":-1e300}"#, "got -1e+300"),
                      (#"{"rating":9223372036854775808}"#, "got 9.223372036854776e+18")]),
    ] + [RemoteCommand<Bool>.like, .dislike, .bookmark].map {
        row($0, valid: [("", false), (#"{"isNegative":true}"#, true)],
            invalid: [(#"{"isNegative":"yes"}"#, "must be a boolean")])
    } + [RemoteCommand<LanguageOptionRequest>.enableLanguageOption, .disableLanguageOption].map {
        row($0, valid: [
            (#"{"languageTag":"de-AT","type":"audible"}"#, LanguageOptionRequest(languageTag: "de-AT", type: .audible)),
            (#"{"languageTag":"en","type":"legible"}"#, LanguageOptionRequest(languageTag: "en", type: .legible)),
        ], invalid: [(#"{"languageTag":"","type":"audible"}"#, "must not be empty"),
                     (#"{"languageTag":"en"}"#, "missing field 'type'")])
    } + [
        row(.playItem, valid: [(#"{"identifier":"t:1"}"#, .identifier("t:1")), (#"{"indexPath":[0,2]}"#, .indexPath([0, 2])),
                               (#"{"url":"file:///music/a.ogg"}"#, .url("file:///music/a.ogg")),
                               (#"{"url":"HTTPS://radio.example/live"}"#, .url("HTTPS://radio.example/live"))],
            invalid: [("{}", "needs 'identifier', 'indexPath' or 'url'"),
                      (#"{"url":"ftp://example.com/a.mp3"}"#, "'url' must be a file://, http:// or https:// URL"),
                      (#"{"url":"file://"}"#, "'url' must be a file://"),
                      (#"{"identifier":"t:1","url":7}"#, "'url' must be a string"),
                      (#"{"indexPath":[0,-1]}"#, "whole numbers of at least 0"),
                      (#"{"indexPath":[1.5]}"#, "whole numbers"),
                      (#"{"identifier":"t:1","indexPath":"x"}"#, "'indexPath' must be an array")]),
        row(.prepareQueue, valid: [(#"{"identifiers":["a","b"]}"#, ["a", "b"]), (#"{"identifiers":[]}"#, [])],
            invalid: [(#"{"identifiers":["a",1]}"#, "array of strings"),
                      (#"{"identifiers":"a"}"#, "must be an array of strings, got a string")]),
        row(.browse, valid: [
            ("", BrowseRequest(indexPath: [])),
            (#"{"indexPath":[1],"offset":20,"limit":10}"#, BrowseRequest(indexPath: [1], offset: 20, limit: 10)),
        ], invalid: [(#"{"offset":-1}"#, "'offset' must be a whole number"),
                     (#"{"limit":2.5}"#, "'limit' must be a whole number"),
                     (#"{"limit":1e300}"#, "got 1e+300")]),
        row(.contentItem, valid: [(#"{"identifier":"t:1"}"#, "t:1")], invalid: [("{}", "missing field 'identifier'")]),
        row(.search, valid: [
            (#"{"query":"sty"}"#, SearchRequest(query: "sty")),
            (#"{"query":"NEAR \"x\" -(a*)","limit":5}"#, SearchRequest(query: #"NEAR "x" -(a*)"#, limit: 5)),
            (#"{"query":"\#(String(repeating: "é", count: 200))","limit":0}"#,
             SearchRequest(query: String(repeating: "é", count: 200), limit: 0)),
        ], invalid: [("{}", "missing field 'query'"), (#"{"query":""}"#, "'query' must not be empty"),
                     (#"{"query":" \t "}"#, "'query' must not be empty"),
                     (#"{"query":"\#(String(repeating: "é", count: 201))"}"#, "'query' must be at most 200 characters, got 201"),
                     (#"{"query":5}"#, "'query' must be a string, got a number"),
                     (#"{"query":"a","limit":-1}"#, "'limit' must be a whole number"),
                     (#"{"query":"a","limit":"5"}"#, "'limit' must be a number")]),
        row(.interrupt, valid: [
            (#"{"type":"begin"}"#, .begin(duck: false)),
            (#"{"type":"begin","duck":true}"#, .begin(duck: true)),
            (#"{"type":"end","shouldResume":true}"#, .end(shouldResume: true)),
        ], invalid: [(#"{"type":"pause"}"#, "\"begin\" or \"end\""), (#"{"type":"end","shouldResume":1}"#, "boolean"),
                     // Each field is checked whatever `type` says.
                     (#"{"type":"begin","shouldResume":"yes"}"#, "'shouldResume' must be a boolean"),
                     (#"{"type":"end","duck":"no"}"#, "'duck' must be a boolean")]),
        row(.changeVolume, valid: [(#"{"volume":0}"#, .level(0)), (#"{"volume":0.35}"#, .level(0.35)),
                                   (#"{"volume":1}"#, .level(1)), (#"{"volume":"up"}"#, .up), (#"{"volume":"down"}"#, .down)],
            invalid: [("{}", "missing field 'volume'"), (#"{"volume":1.01}"#, "within 0...1, got 1.01"),
                      (#"{"volume":-0.1}"#, "got -0.1"), (#"{"volume":1e300}"#, "got 1e+300"),
                      (#"{"volume":"louder"}"#, "\"up\" or \"down\", got \"louder\""),
                      (#"{"volume":true}"#, "got a boolean"), (#"{"volume":null}"#, "got null")]),
        row(.mute, valid: [(#"{"isMuted":true}"#, true), (#"{"isMuted":false}"#, false)],
            invalid: [("{}", "missing field 'isMuted'"), (#"{"isMuted":"true"}"#, "must be a boolean"),
                      (#"{"isMuted":1}"#, "must be a boolean")]),
        row(.addToQueue, valid: [(#"{"identifiers":["a"]}"#, QueueAddRequest(identifiers: ["a"])),
                                 (#"{"identifiers":["a","b"],"position":"next"}"#,
                                  QueueAddRequest(identifiers: ["a", "b"], position: .next))],
            invalid: [(#"{"identifiers":[]}"#, "'identifiers' is empty"), ("{}", "missing field 'identifiers'"),
                      (#"{"identifiers":["a"],"position":"first"}"#, "must be one of \"next\", \"end\""),
                      (#"{"identifiers":["a"],"position":1}"#, "'position' must be a string"),
                      (#"{"identifiers":[1]}"#, "array of strings")]),
        row(.removeFromQueue, valid: [(#"{"index":0}"#, 0), (#"{"index":12}"#, 12)],
            invalid: [("{}", "missing field 'index'"), (#"{"index":-1}"#, "whole number"), (#"{"index":1.5}"#, "whole number"),
                      (#"{"index":"1"}"#, "must be a number"), (#"{"index":1e300}"#, "got 1e+300")]),
        row(.moveQueueItem, valid: [(#"{"from":0,"to":3}"#, QueueMoveRequest(from: 0, to: 3))],
            invalid: [(#"{"from":0}"#, "missing field 'to'"), (#"{"to":0}"#, "missing field 'from'"),
                      (#"{"from":-2,"to":0}"#, "whole number")]),
        row(.download, valid: [(#"{"identifier":"ep1"}"#, DownloadRequest(identifier: "ep1")),
                               (#"{"identifier":"ep1","isNegative":true}"#, DownloadRequest(identifier: "ep1", isNegative: true))],
            invalid: [("{}", "missing field 'identifier'"), (#"{"identifier":""}"#, "'identifier' must not be empty"),
                      (#"{"identifier":"ep1","isNegative":"yes"}"#, "'isNegative' must be a boolean")]),
        row(.announce,
            valid: [(#"{"text":"Next stop"}"#, .announce(Announcement(source: .text("Next stop", language: nil)))),
                    (#"{"text":"Halt","lang":"de","mode":"pause","volume":0.5}"#,
                     .announce(Announcement(source: .text("Halt", language: "de"), mode: .pause, volume: 0.5))),
                    (#"{"url":"file:///tmp/chime.ogg"}"#, .announce(Announcement(source: .url("file:///tmp/chime.ogg")))),
                    (#"{"identifier":"track:1","mode":"duck"}"#, .announce(Announcement(source: .identifier("track:1")))),
                    (#"{"cancel":true}"#, .cancel)],
            invalid: [("{}", "one of 'url', 'identifier' or 'text'"),
                      (#"{"text":"a","url":"file:///a"}"#, "exactly one of"),
                      (#"{"cancel":true,"text":"a"}"#, "'cancel' comes alone"), (#"{"cancel":false}"#, "only be true"),
                      (#"{"text":"   "}"#, "must not be empty"),
                      ("{\"text\":\"\(String(repeating: "a", count: 10_000))\"}", "at most 1000 characters"),
                      (#"{"url":"ftp://x/a.mp3"}"#, "file://, http:// or https://"), (#"{"url":"a","lang":"en"}"#, "'lang' goes with 'text'"),
                      (#"{"text":"a","lang":"e n"}"#, "'lang' must be a language"), (#"{"text":"a","mode":"shout"}"#, "\"duck\" or \"pause\""),
                      (#"{"text":"a","volume":2}"#, "within 0...1"), (#"{"text":"a","volume":"loud"}"#, "'volume' must be a number"),
                      (#"{"text":5}"#, "'text' must be a string"), (#"{"identifier":""}"#, "must not be empty")]),
        row(.skipToChapter, valid: [(#"{"chapterNumber":0}"#, 0), (#"{"chapterNumber":22}"#, 22)],
            invalid: [("{}", "missing field 'chapterNumber'"), (#"{"chapterNumber":-1}"#, "whole number"),
                      (#"{"chapterNumber":1.5}"#, "whole number"), (#"{"chapterNumber":"2"}"#, "must be a number"),
                      (#"{"chapterNumber":1e300}"#, "got 1e+300")]),
    ]

    @Test("every command of the table has a row with valid and invalid payloads")
    func tableCoversEveryCommand() {
        #expect(Self.rows.map(\.name) == CommandTable.names)
        for row in Self.rows { #expect(row.hasValidAndInvalid, "\(row.name)") }
    }

    @Test("valid payloads reach the handler as typed arguments", arguments: rows)
    func validPayloads(_ row: Row) async { await row.checkValid() }

    @Test("invalid payloads are refused with commandFailed saying why", arguments: rows)
    func invalidPayloads(_ row: Row) async { await row.checkInvalid() }

    @Test("an unknown command name is answered too")
    func unknownCommand() async {
        let center = RemoteCommandCenter()
        let reply = await center.handle(name: "launchRocket", payload: Array(#"{"id":"x"}"#.utf8))
        #expect(reply.result.status == .commandFailed)
        #expect(reply.result.message == "unknown command 'launchRocket'")
        #expect(reply.id == "x")
        #expect(reply.command == "launchRocket")
    }
}

/// Sendable pairs for a row's closures (tuples of Sendable values are Sendable, arrays of them need help).
private struct Pairs<First: Sendable, Second: Sendable>: Sendable {
    var pairs: [(First, Second)]
    init(_ pairs: [(First, Second)]) { self.pairs = pairs }
}
