import Foundation
import MQTTTransport
import MediaJSON
import MediaNodeTesting
import RemoteCommands
import Testing

/// asyncapi.yaml is the contract for tools: the real daemon's messages, every retained topic, replies and
/// events among them, must fit its schemas (checked by Tests/Fixtures/asyncapi_check.py with Debian's
/// python3-jsonschema), and it must name every topic topics.md names.
@Suite("asyncapi.yaml describes what the node publishes")
final class AsyncApiTests {
    let scratch: URL
    static let prefix = "medianode/api1"

    init() throws {
        scratch = try AudioFixtures.makeTemporaryDirectory("asyncapi")
    }

    deinit {
        try? FileManager.default.removeItem(at: scratch)
    }

    static var root: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    }

    @Test("every message of a node that plays, is browsed, refused and given a context fits asyncapi.yaml")
    func realMessagesFitTheSchemas() async throws {
        let library = scratch.appendingPathComponent("music")
        for track in AudioFixtures.album(count: 2, seconds: 2) { try await AudioFixtures.writeTone(track, in: library) }
        try await AudioFixtures.writeCover(named: "cover.jpg", width: 300, height: 300, in: library)
        let book = try await AudioFixtures.writeChapteredBook(
            [ToneChapter("One", frequency: 440, seconds: 1.5), ToneChapter("Two", frequency: 660, seconds: 1.5)],
            named: "book.ogg", in: library.appendingPathComponent("Book"))
        let bookID = LibraryCatalog.trackIdentifier(path: book.path, libraries: [library.path])
        let broker = try await MosquittoBroker()
        let client = try TestMQTTClient(brokerURL: broker.url)
        try await client.connect()
        try await client.subscribeAndSettle("\(Self.prefix)/#")
        try await client.subscribeAndSettle("homeassistant/#")
        let node = try NodeProcess(arguments: [
            "--broker", broker.url, "--node-id", "api1", "--audio-sink", "fake", "--library", library.path,
            "--database", scratch.appendingPathComponent("catalog.sqlite").path, "--homeassistant",
        ])
        _ = try await client.first(timeout: .seconds(30)) {
            $0.topic == "\(Self.prefix)/status" && $0.payload == Array("online".utf8)
        }
        func send(_ command: String, _ fields: String = "") async throws -> JSONValue {
            let id = "\(command)-\(UUID().uuidString.prefix(6))"
            try await client.publish("\(Self.prefix)/cmd/\(command)", #"{"id":"\#(id)"\#(fields.isEmpty ? "" : ",")\#(fields)}"#)
            let reply = try await client.first {
                $0.topic == "\(Self.prefix)/result" && (try? JSONValue(parsing: $0.payload))?["id"] == .string(id)
            }
            return try JSONValue(parsing: reply.payload)
        }
        // The library is scanned in the background: play from the tree once the album is there.
        var played = JSONValue.null
        for _ in 0..<40 where played["status"] != "success" {
            played = try await send("playItem", #""indexPath":[0,1,0,0]"#)
            if played["status"] != "success" { try await Task.sleep(for: .milliseconds(250)) }
        }
        #expect(played["status"] == "success", "\(played.jsonString)")
        _ = try await client.first { $0.topic == "\(Self.prefix)/nowplaying/artwork" && !$0.payload.isEmpty }
        _ = try await send("pause")
        _ = try await send("pause")  // commandFailed
        _ = try await send("changeRepeatMode", #""repeatType":"all""#)
        _ = try await send("changeShuffleMode", #""shuffleType":"items""#)
        _ = try await send("play")
        _ = try await send("nextTrack")
        _ = try await send("changePlaybackPosition", #""positionTime":0.5"#)
        _ = try await send("skipForward", #""interval":0.5"#)
        _ = try await send("changePlaybackRate", #""playbackRate":"next""#)
        _ = try await send("like")
        // A book: contentItem lists its chapters, now playing names one, skipToChapter moves to another.
        let chaptered = try await send("contentItem", #""identifier":"\#(bookID)""#)
        #expect(chaptered["data"]?["chapters"]?.arrayValue?.count == 2, "\(chaptered.jsonString)")
        #expect(try await send("playItem", #""identifier":"\#(bookID)""#)["status"] == "success")
        #expect(try await send("skipToChapter", #""chapterNumber":1"#)["status"] == "success")
        _ = try await client.first {
            $0.topic == "\(Self.prefix)/nowplaying" && (try? JSONValue(parsing: $0.payload))?["chapterTitle"] == "Two"
        }
        let browsed = try await send("browse", #""indexPath":[0,1,0]"#)
        #expect(browsed["data"]?["children"] != nil, "\(browsed.jsonString)")
        let child = try #require(browsed["data"]?["children"]?.arrayValue?.first?["identifier"]?.stringValue)
        let item = try await send("contentItem", #""identifier":"\#(child)""#)
        #expect(item["data"]?["identifier"] == .string(child))
        #expect(try await send("contentItem", #""identifier":"track:none""#)["status"] == "noSuchContent")
        #expect(try await send("seekForward", #""type":"sideways""#)["status"] == "commandFailed")
        try await client.publish("\(Self.prefix)/context",
                                 #"{"contentLimitsEnforced":true,"enforcedContentItemsCount":12,"enforcedContentTreeDepth":3,"endpointAvailable":true}"#)
        try await client.publish("\(Self.prefix)/context", "[not a context")  // left out below; its error event is checked
        _ = try await client.first { $0.topic == "\(Self.prefix)/events" && String(decoding: $0.payload, as: UTF8.self).contains("context") }
        _ = try await send("stop")
        try await Task.sleep(for: .milliseconds(500))
        node.signal(SIGTERM)
        _ = await node.waitForExit()
        _ = try await client.first { $0.topic == "\(Self.prefix)/status" && $0.payload == Array("offline".utf8) }

        // What we sent wrong on purpose is left out; everything else, ours and the node's, is checked.
        let messages = await client.received.filter { message in
            // The test client's own probe topic is not the node's.
            !message.topic.hasPrefix("medianode-test-probe/")
                && !(message.topic == "\(Self.prefix)/context" && message.payload.first != UInt8(ascii: "{"))
                && !(message.topic.hasSuffix("/cmd/seekForward"))
        }
        let report = try await Self.check(messages)
        #expect(report.status == 0, "\(report.output)")
        let channels = [
            "status", "info", "commands", "nowPlaying", "nowPlayingArtwork", "queue", "contentTreeRoot", "contentTreeNode",
            "artwork", "result", "events", "context", "homeAssistantDiscovery", "cmdPlayItem", "cmdBrowse", "metrics",
            "cmdSkipToChapter",
        ]
        for channel in channels {
            #expect(report.output.contains("channel \(channel) "), "no message on \(channel):\n\(report.output)")
        }
        let events = await client.messages(on: "\(Self.prefix)/events").compactMap { try? JSONValue(parsing: $0.payload)["type"]?.stringValue }
        for type in ["trackStarted", "trackEnded", "catalogUpdated", "error"] {
            #expect(events.contains(type), "no \(type) event among \(events)")
        }
        await client.disconnect()
        broker.stop()
    }

    @Test("a message that breaks the contract is caught: the check can fail")
    func checkCatchesBreakage() async throws {
        func message(_ topic: String, _ payload: String) -> MQTTMessageRecord {
            MQTTMessageRecord(topic: "\(Self.prefix)/\(topic)", payload: Array(payload.utf8), retain: true)
        }
        let bad = [
            message("nowplaying", #"{"state":"playing","playbackRate":"fast"}"#),
            message("queue", #"{"identifiers":[],"index":null,"repeatMode":"sometimes","shuffleMode":"off"}"#),
            message("result", #"{"id":"1","command":"pause","status":"success","code":200,"message":null,"data":null}"#),
            message("content/tree/0", #"{"indexPath":[0],"childCount":1,"offset":0,"children":[{"identifier":"x"}],"displaysPlaybackProgress":false}"#),
            message("nowplaying/artwork", "not a picture"),
            message("nosuchtopic", "{}"),
        ]
        for record in bad {
            let report = try await Self.check(records: [record])
            #expect(report.status != 0, "accepted \(record.topic): \(report.output)")
        }
    }

    @Test("every topic topics.md names is a channel of asyncapi.yaml, and every command has its channel")
    func topicsAreChannels() throws {
        let yaml = try String(contentsOf: Self.root.appendingPathComponent("asyncapi.yaml"), encoding: .utf8)
        let addresses = Set(yaml.matches(of: /\n    address: '([^']+)'/).map { String($0.output.1) })
        let spans = MarkdownPage.codeSpans(in: try MarkdownPage("topics.md").text)
        let topics = spans.filter { $0.hasPrefix("P/") || $0.hasPrefix("PREFIX/") || $0.hasPrefix("homeassistant/") }
        #expect(topics.count >= 12, "topics read from topics.md: \(topics)")
        for topic in topics where topic != "P/" {
            if topic == "P/cmd/<command>" {
                for name in CommandTable.names {
                    #expect(addresses.contains("{prefix}/cmd/\(name)"), "no channel for \(name)")
                }
                continue
            }
            let address = topic
                .replacing(/^P\//, with: "{prefix}/").replacing(/^(PREFIX|homeassistant)\//, with: "{discoveryPrefix}/")
                .replacing(/(<i>\/<j>|i\/j)\/\.\.\./, with: "{indexPath}").replacing("<key>", with: "{key}")
                .replacing("<object-id>", with: "{objectId}")
            #expect(addresses.contains(address), "\(topic) (\(address)) is not a channel of asyncapi.yaml")
        }
        #expect(addresses.contains("{prefix}/cmd/changeVolume") && addresses.contains("{prefix}/volume"))
    }

    @Test("asyncapi.yaml is a well-formed AsyncAPI 3.0 document: references resolve, parameters match, schemas are valid")
    func documentIsWellFormed() async throws {
        let run = try await Self.checkDocument("--document")
        #expect(run.status == 0, "\(run.output)")
        #expect(run.output.contains(" 0 problems"), "\(run.output)")
    }

    // MARK: - The checker

    /// Runs the checker on asyncapi.yaml itself with `mode` (`--document`, `--command-fields`).
    static func checkDocument(_ mode: String) async throws -> (status: Int32, output: String) {
        try await ToolRun.capture("/usr/bin/python3", [
            root.appendingPathComponent("Tests/Fixtures/asyncapi_check.py").path,
            root.appendingPathComponent("asyncapi.yaml").path, mode,
        ])
    }

    struct MQTTMessageRecord {
        var topic: String
        var payload: [UInt8]
        var retain: Bool
    }

    static func check(_ messages: [MQTTMessage]) async throws -> (status: Int32, output: String) {
        try await check(records: messages.map { MQTTMessageRecord(topic: $0.topic, payload: $0.payload, retain: $0.retain) })
    }

    static func check(records: [MQTTMessageRecord]) async throws -> (status: Int32, output: String) {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("messages-\(UUID().uuidString).jsonl")
        defer { try? FileManager.default.removeItem(at: file) }
        let lines = records.map { record in
            JSONValue.object([
                "topic": .string(record.topic), "payload": .string(Data(record.payload).base64EncodedString()),
                "retain": .bool(record.retain),
            ]).jsonString
        }
        try (lines.joined(separator: "\n") + "\n").write(to: file, atomically: true, encoding: .utf8)
        return try await ToolRun.capture("/usr/bin/python3", [
            root.appendingPathComponent("Tests/Fixtures/asyncapi_check.py").path,
            root.appendingPathComponent("asyncapi.yaml").path, file.path, "--prefix", prefix,
        ])
    }
}
