import Foundation
import MediaJSON
import MediaNodeTesting
import Testing

/// What a Home Assistant user gets from `--homeassistant`: the real daemon on a real broker, its discovery
/// message checked by Home Assistant's own discovery code and schemas (deploy/install-homeassistant.sh).
@Suite("Home Assistant discovery")
final class HomeAssistantDiscoveryTests {
    let scratch: URL

    init() throws {
        scratch = try AudioFixtures.makeTemporaryDirectory("homeassistant")
    }

    deinit {
        try? FileManager.default.removeItem(at: scratch)
    }

    static let nodeID = "car1-ha"
    static let objectID = "car1-ha"
    static let prefix = "medianode/\(nodeID)"

    func arguments(_ broker: MosquittoBroker, database: String = "catalog.sqlite", library: URL? = nil) -> [String] {
        ["--broker", broker.url, "--node-id", Self.nodeID, "--audio-sink", "fake",
         "--database", scratch.appendingPathComponent(database).path]
            + (library.map { ["--library", $0.path] } ?? [])
    }

    func watcher(_ broker: MosquittoBroker, _ filters: String...) async throws -> TestMQTTClient {
        let client = try TestMQTTClient(brokerURL: broker.url)
        try await client.connect()
        for filter in filters { try await client.subscribeAndSettle(filter) }
        return client
    }

    @Test("--homeassistant publishes one retained device discovery that Home Assistant 2025.4 accepts, every component")
    func discoveryAcceptedByHomeAssistant() async throws {
        let broker = try await MosquittoBroker()
        // The flag alone, followed by another flag: the default prefix.
        let node = try NodeProcess(arguments: ["--homeassistant"] + arguments(broker))
        let late = try await watcher(broker, "homeassistant/#", "\(Self.prefix)/status", "\(Self.prefix)/commands")
        _ = try await late.first { $0.topic == "\(Self.prefix)/status" && $0.payload == Array("online".utf8) }
        let topic = "homeassistant/device/\(Self.objectID)/config"
        let message = try await late.first { $0.topic == topic }
        // The Announce text entity is there when the node says it can speak (eSpeak NG is installed).
        let commands = try await late.first { $0.topic == "\(Self.prefix)/commands" }
        let speaks = try JSONValue(parsing: commands.payload)["announce"]?["textToSpeech"] == true
        // Retained: a Home Assistant that subscribes later gets it.
        let later = try await watcher(broker, topic)
        #expect(try await later.first { $0.topic == topic }.retain)
        await later.disconnect()
        let report = try await HomeAssistantCheck.run(topic: topic, discovery: message.payload)
        #expect(report.status == 0, "Home Assistant refused the discovery:\n\(report.output)")
        // Home Assistant's own code says which entities it would create, and on which topics.
        let expected = [
            "sensor state", "sensor title", "sensor artist", "sensor album", "sensor chapter", "image artwork", "button play",
            "button pause", "button next", "button previous", "button stop", "select repeat", "select shuffle",
            "number volume", "switch mute",
        ] + (speaks ? ["text announce"] : [])
        #expect(report.output.split(separator: "\n").filter { $0.hasPrefix("ok ") }.count == expected.count, "\(report.output)")
        for line in expected {
            let (platform, component) = (line.split(separator: " ")[0], line.split(separator: " ")[1])
            #expect(report.output.contains("ok \(platform) \(Self.objectID)_\(component) "), "\(line) missing:\n\(report.output)")
        }
        #expect(report.output.contains("availability \(Self.prefix)/status online/offline"), "\(report.output)")
        // An empty press payload: without it Home Assistant sends PRESS, which is not JSON.
        for (button, command) in [("play", "play"), ("pause", "pause"), ("next", "nextTrack"), ("previous", "previousTrack"),
                                  ("stop", "stop")] {
            #expect(report.output.contains("button \(Self.objectID)_\(button) command_topic=\(Self.prefix)/cmd/\(command) payload=''"),
                    "\(report.output)")
        }
        #expect(report.output.contains("image \(Self.objectID)_artwork image_topic=\(Self.prefix)/nowplaying/artwork"),
                "\(report.output)")
        // Home Assistant's own template engine on what the node publishes: what each entity shows and sends.
        let id = Self.objectID
        let rendered = [
            "render \(id)_state nowplaying playing -> playing", "render \(id)_title nowplaying playing -> Style",
            "render \(id)_title nowplaying stopped -> None", "render \(id)_artist nowplaying playing -> Taylor Swift",
            "render \(id)_album nowplaying playing -> 1989", "render \(id)_chapter nowplaying chapter -> The Crossing",
            "render \(id)_chapter nowplaying playing -> None", "render \(id)_repeat queue -> all",
            "render \(id)_shuffle queue -> items", "render \(id)_volume volume -> 0.25", "render \(id)_mute volume -> ON",
            #"command \#(id)_repeat all -> {"repeatType": "all"}"#, #"command \#(id)_shuffle items -> {"shuffleType": "items"}"#,
            #"command \#(id)_volume 0.5 -> {"volume": 0.5}"#,
            #"command \#(id)_mute on -> {"isMuted": true} off -> {"isMuted": false}"#,
        ]
        for line in rendered {
            #expect(report.output.contains(line + "\n"), "expected '\(line)':\n\(report.output)")
        }
        // What a person types in the Announce box goes to announce as its text, quotes and all.
        if speaks {
            for line in [
                #"command \#(id)_announce Next stop: "Harbour" Straße -> {"id": "homeassistant-announce", "text": "Next stop: \"Harbour\" Straße"}"#,
                "text \(id)_announce command_topic=\(Self.prefix)/cmd/announce min=1 max=255 mode=text",
            ] {
                #expect(report.output.contains(line + "\n"), "expected '\(line)':\n\(report.output)")
            }
        } else {
            #expect(!report.output.contains("_announce"), "an announce entity on a node that cannot speak:\n\(report.output)")
        }
        // Nothing else under the discovery prefix.
        try await Task.sleep(for: .milliseconds(300))
        #expect(await Set(late.received.filter { $0.topic.hasPrefix("homeassistant/") }.map(\.topic)) == [topic])
        node.signal(SIGTERM)
        _ = await node.waitForExit()
        await late.disconnect()
        broker.stop()
    }

    @Test("Home Assistant's birth message on homeassistant/status or PREFIX/status brings discovery again")
    func republishedOnBirth() async throws {
        let broker = try await MosquittoBroker()
        let client = try await watcher(broker, "ha-test/#", "\(Self.prefix)/status")
        let node = try NodeProcess(arguments: arguments(broker) + ["--homeassistant", "ha-test"])
        let topic = "ha-test/device/\(Self.objectID)/config"
        let first = try await client.first { $0.topic == topic }
        _ = try await client.first { $0.topic == "\(Self.prefix)/status" && $0.payload == Array("online".utf8) }
        for birth in ["homeassistant/status", "ha-test/status"] {
            await client.clear()
            try await client.publish(birth, "offline")
            try await Task.sleep(for: .milliseconds(300))
            #expect(await client.messages(on: topic).isEmpty, "discovery went out on 'offline' from \(birth)")
            try await client.publish(birth, "online")
            let again = try await client.first { $0.topic == topic }
            #expect(again.payload == first.payload)
        }
        node.signal(SIGTERM)
        _ = await node.waitForExit()
        await client.disconnect()
        broker.stop()
    }

    @Test("started again without the flag, the node clears the discovery it published, and publishes nothing there")
    func clearedWithoutTheFlag() async throws {
        let broker = try await MosquittoBroker()
        let topic = "homeassistant/device/\(Self.objectID)/config"
        let withFlag = try NodeProcess(arguments: arguments(broker) + ["--homeassistant"])
        let client = try await watcher(broker, "homeassistant/#")
        _ = try await client.first { $0.topic == topic && !$0.payload.isEmpty }
        withFlag.signal(SIGTERM)
        #expect(await withFlag.waitForExit() == 0, "\(withFlag.log)")
        await client.clear()
        let without = try NodeProcess(arguments: arguments(broker))
        let cleared = try await client.first { $0.topic == topic }
        #expect(cleared.payload.isEmpty, "\(String(decoding: cleared.payload, as: UTF8.self))")
        #expect(await without.waitForLog("clearing the Home Assistant discovery"), "\(without.log)")
        // A Home Assistant that connects now finds no device.
        let late = try await watcher(broker, "homeassistant/#", "\(Self.prefix)/status")
        _ = try await late.first { $0.topic == "\(Self.prefix)/status" && $0.payload == Array("online".utf8) }
        try await Task.sleep(for: .milliseconds(300))
        #expect(await late.received.filter { $0.topic.hasPrefix("homeassistant/") }.isEmpty)
        // And a third start without the flag has nothing left to clear.
        without.signal(SIGTERM)
        _ = await without.waitForExit()
        await client.clear()
        let third = try NodeProcess(arguments: arguments(broker))
        _ = try await late.first { $0.topic == "\(Self.prefix)/status" && $0.payload == Array("online".utf8) && $0.retain == false }
        try await Task.sleep(for: .milliseconds(500))
        #expect(await client.messages(on: topic).isEmpty)
        third.signal(SIGTERM)
        _ = await third.waitForExit()
        await client.disconnect()
        await late.disconnect()
        broker.stop()
    }

    @Test("the config file's \"homeassistant\": true uses the default prefix, a string names another, false none")
    func configFile() async throws {
        let broker = try await MosquittoBroker()
        let client = try await watcher(broker, "#")
        for (value, topic) in [("true", "homeassistant"), (#""ha-file""#, "ha-file"), ("false", nil)] {
            let config = scratch.appendingPathComponent("config-\(topic ?? "none").json")
            try #"{"homeassistant": \#(value)}"#.write(to: config, atomically: true, encoding: .utf8)
            await client.clear()
            let node = try NodeProcess(arguments: arguments(broker, database: "config.sqlite") + ["--config", config.path])
            _ = try await client.first { $0.topic == "\(Self.prefix)/commands" }
            try await Task.sleep(for: .milliseconds(300))
            let discovery = await client.received.filter { $0.topic.hasSuffix("/device/\(Self.objectID)/config") && !$0.payload.isEmpty }
            #expect(discovery.map(\.topic) == (topic.map { ["\($0)/device/\(Self.objectID)/config"] } ?? []), "\(value)")
            node.signal(SIGTERM)
            _ = await node.waitForExit()
        }
        await client.disconnect()
        broker.stop()
    }

    @Test("P/nowplaying/artwork holds the playing item's picture, the bytes of its artwork topic, and is empty before")
    func nowPlayingArtworkTopic() async throws {
        let library = scratch.appendingPathComponent("music")
        try await AudioFixtures.writeTone(ToneTrack(fileName: "a.ogg", frequency: 440, seconds: 8, title: "Cover"), in: library)
        try await AudioFixtures.writeCover(named: "cover.jpg", width: 700, height: 700, in: library)
        let broker = try await MosquittoBroker()
        let client = try await watcher(broker, "\(Self.prefix)/#")
        let node = try NodeProcess(arguments: arguments(broker, library: library))
        let artworkTopic = "\(Self.prefix)/nowplaying/artwork"
        let before = try await client.first { $0.topic == artworkTopic }
        #expect(before.payload.isEmpty)
        // Library, Albums, the album, its track: the scan may still be running, so ask until it plays.
        var status = ""
        for attempt in 0..<40 where status != "success" {
            try await client.publish("\(Self.prefix)/cmd/playItem", #"{"indexPath":[0,1,0,0],"id":"p\#(attempt)"}"#)
            let reply = try await client.first {
                $0.topic == "\(Self.prefix)/result" && (try? JSONValue(parsing: $0.payload))?["id"] == .string("p\(attempt)")
            }
            status = try JSONValue(parsing: reply.payload)["status"]?.stringValue ?? ""
            if status != "success" { try await Task.sleep(for: .milliseconds(250)) }
        }
        #expect(status == "success")
        let nowPlaying = try await client.first(timeout: .seconds(15)) {
            $0.topic == "\(Self.prefix)/nowplaying" && (try? JSONValue(parsing: $0.payload))?["artwork"] != nil
        }
        let hashTopic = try #require(try JSONValue(parsing: nowPlaying.payload)["artwork"]?["topic"]?.stringValue)
        let picture = try await client.first { $0.topic == artworkTopic && !$0.payload.isEmpty }
        #expect(picture.payload.starts(with: [0xFF, 0xD8, 0xFF]))
        #expect(await picture.payload == client.latest(on: hashTopic)?.payload)
        // A Home Assistant connecting now reads it retained.
        let late = try await watcher(broker, artworkTopic)
        let retained = try await late.first { $0.topic == artworkTopic }
        #expect(retained.retain && retained.payload == picture.payload)
        node.signal(SIGTERM)
        _ = await node.waitForExit()
        await client.disconnect()
        await late.disconnect()
        broker.stop()
    }
}

/// Runs Tests/Fixtures/homeassistant_discovery_check.py in Home Assistant's own Python environment.
enum HomeAssistantCheck {
    static var python: String {
        let venv = ProcessInfo.processInfo.environment["MEDIANODE_HOMEASSISTANT_VENV"] ?? "/opt/medianode-homeassistant"
        return venv + "/bin/python"
    }

    static func run(topic: String, discovery: [UInt8], prefix: String = "homeassistant") async throws -> (status: Int32, output: String) {
        guard FileManager.default.isExecutableFile(atPath: python) else {
            throw RigSetupError("Home Assistant is not installed at \(python): run deploy/install-homeassistant.sh")
        }
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("discovery-\(UUID().uuidString).json")
        try Data(discovery).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/homeassistant_discovery_check.py")
        let run = try await ToolRun.capture(python, [script.path, topic, file.path, prefix])
        return (run.status, run.output)
    }
}
