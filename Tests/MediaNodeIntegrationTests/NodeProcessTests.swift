import Foundation
import MQTTTransport
import MediaNodeTesting
import RemoteCommands
import Testing
import MediaJSON

@Suite("The medianode process: last will, clean shutdown, broker outages")
final class NodeProcessTests {
    /// Each test's databases; removed when the test ends, as Swift Testing makes a suite instance per test.
    let scratch: URL

    init() throws {
        scratch = try AudioFixtures.makeTemporaryDirectory("proc")
    }

    deinit {
        try? FileManager.default.removeItem(at: scratch)
    }

    func arguments(_ broker: MosquittoBroker, nodeID: String = "proc") -> [String] {
        ["--broker", broker.url, "--node-id", nodeID, "--audio-sink", "fake",
         "--database", scratch.appendingPathComponent("\(nodeID)-\(UUID()).sqlite").path]
    }

    /// A node that has published its capabilities, so it takes commands, and a client watching all its topics.
    func nodeShowingCommands() async throws -> (MosquittoBroker, TestMQTTClient, NodeProcess) {
        let broker = try await MosquittoBroker()
        let watcher = try await watcher(broker, "medianode/proc/#")
        let node = try NodeProcess(arguments: arguments(broker))
        _ = try await watcher.first { $0.topic == "medianode/proc/commands" }
        return (broker, watcher, node)
    }

    func watcher(_ broker: MosquittoBroker, _ filter: String) async throws -> TestMQTTClient {
        let client = try TestMQTTClient(brokerURL: broker.url)
        try await client.connect()
        try await client.subscribeAndSettle(filter)
        return client
    }

    @Test("kill -9 of the node leaves 'offline' retained through its last will")
    func lastWillOnKill() async throws {
        let broker = try await MosquittoBroker()
        let watcher = try await watcher(broker, "medianode/proc/status")
        let node = try NodeProcess(arguments: arguments(broker))
        _ = try await watcher.first { String(decoding: $0.payload, as: UTF8.self) == "online" }
        node.signal(SIGKILL)
        _ = await node.waitForExit()
        _ = try await watcher.first { String(decoding: $0.payload, as: UTF8.self) == "offline" }
        // A newcomer sees the retained offline.
        let late = try await self.watcher(broker, "medianode/proc/status")
        let retained = try await late.first { $0.topic == "medianode/proc/status" }
        #expect(String(decoding: retained.payload, as: UTF8.self) == "offline")
        #expect(retained.retain)
        await watcher.disconnect()
        await late.disconnect()
    }

    @Test("SIGTERM publishes 'offline' retained and the process exits cleanly", arguments: [SIGTERM, SIGINT])
    func cleanShutdown(signal: Int32) async throws {
        let broker = try await MosquittoBroker()
        let watcher = try await watcher(broker, "medianode/proc/status")
        let node = try NodeProcess(arguments: arguments(broker))
        _ = try await watcher.first { String(decoding: $0.payload, as: UTF8.self) == "online" }
        node.signal(signal)
        let status = await node.waitForExit()
        #expect(status == 0, "log: \(node.log)")
        _ = try await watcher.first { String(decoding: $0.payload, as: UTF8.self) == "offline" }
        // A clean MQTT DISCONNECT, so the broker discards the will; a dropped socket would log "closed its connection".
        // Judged once the broker has logged the connection's end: a loaded machine may give the broker its turn
        // after the test's (below, the node waits for it, within limits).
        #expect(await broker.waitForLog(anyOf: ["Client medianode-proc disconnected.", "Client medianode-proc closed its connection"]))
        #expect(broker.log.contains("Client medianode-proc disconnected."), "broker log: \(broker.log)")
        #expect(!broker.log.contains("Client medianode-proc closed its connection"), "broker log: \(broker.log)")
        await watcher.disconnect()
    }

    @Test("over a slow link, by the time the SIGTERMed process has exited the broker has taken its 'offline' and its DISCONNECT")
    func goodbyeTakenBeforeExit() async throws {
        let broker = try await MosquittoBroker()
        // 100 ms each way: the DISCONNECT is still on its way when a node that does not wait for the broker exits.
        let link = try await SlowLink(to: broker, delay: .milliseconds(100))
        defer { link.stop() }
        let watcher = try await watcher(broker, "medianode/proc/status")
        var arguments = arguments(broker)
        arguments[arguments.firstIndex(of: broker.url)!] = link.url
        let node = try NodeProcess(arguments: arguments)
        _ = try await watcher.first(timeout: .seconds(30)) { String(decoding: $0.payload, as: UTF8.self) == "online" }
        let asked = ContinuousClock.now
        node.signal(SIGTERM)
        #expect(await node.waitForExit() == 0, "log: \(node.log)")
        let took = ContinuousClock.now - asked
        let log = broker.log
        #expect(log.contains("Client medianode-proc disconnected."), "the broker had not taken the DISCONNECT when the node was gone: \(log)")
        #expect(!log.contains("Client medianode-proc closed its connection"), "broker log: \(log)")
        #expect(took < .seconds(3), "shutdown took \(took)")
        let late = try await self.watcher(broker, "medianode/proc/status")
        let retained = try await late.first { $0.topic == "medianode/proc/status" }
        #expect(String(decoding: retained.payload, as: UTF8.self) == "offline")
        await late.disconnect()
        await watcher.disconnect()
    }

    @Test("an 'offline' another client leaves retained on a running node's status is answered with 'online' within a second; its own at SIGTERM stays")
    func offlineWhileRunningIsAnswered() async throws {
        let broker = try await MosquittoBroker()
        let watcher = try await watcher(broker, "medianode/proc/status")
        let node = try NodeProcess(arguments: arguments(broker))
        _ = try await watcher.first { String(decoding: $0.payload, as: UTF8.self) == "online" }
        for round in 1...3 {
            // What a cluster does when it delivers the last will of the node's old connection late.
            await watcher.clear()
            let said = ContinuousClock.now
            try await watcher.publish("medianode/proc/status", "offline", retain: true)
            _ = try await watcher.first(timeout: .seconds(5)) { String(decoding: $0.payload, as: UTF8.self) == "offline" }
            _ = try await watcher.first(timeout: .seconds(5)) { String(decoding: $0.payload, as: UTF8.self) == "online" }
            let took = ContinuousClock.now - said
            #expect(took < .seconds(1), "round \(round): online again after \(took)")
            // A dashboard that subscribes now finds it online.
            let late = try await self.watcher(broker, "medianode/proc/status")
            let retained = try await late.first { $0.topic == "medianode/proc/status" }
            #expect(String(decoding: retained.payload, as: UTF8.self) == "online", "round \(round)")
            #expect(retained.retain)
            await late.disconnect()
        }
        #expect(node.log.contains("saying online again"), "\(node.log)")

        // Its own goodbye is not answered.
        node.signal(SIGTERM)
        #expect(await node.waitForExit() == 0, "log: \(node.log)")
        let late = try await self.watcher(broker, "medianode/proc/status")
        let retained = try await late.first { $0.topic == "medianode/proc/status" }
        #expect(String(decoding: retained.payload, as: UTF8.self) == "offline", "\(node.log)")
        await late.disconnect()
        await watcher.disconnect()
    }

    @Test("a broker that is down at start is retried, logged once, and the node comes online when it appears")
    func brokerDownAtStart() async throws {
        let broker = try await MosquittoBroker(startNow: false)
        let node = try NodeProcess(arguments: arguments(broker))
        #expect(await node.waitForLog("cannot reach broker"))
        try await Task.sleep(for: .seconds(3))
        try await broker.start()
        let watcher = try await watcher(broker, "medianode/proc/status")
        let status = try await watcher.first(timeout: .seconds(40)) { $0.topic == "medianode/proc/status" }
        #expect(String(decoding: status.payload, as: UTF8.self) == "online")
        let warnings = node.log.components(separatedBy: "cannot reach broker").count - 1
        #expect(warnings == 1, "the outage was logged \(warnings) times:\n\(node.log)")
        node.signal(SIGTERM)
        _ = await node.waitForExit()
        await watcher.disconnect()
    }

    @Test("two nodes with the same id: the one pushed off explains why in its log")
    func duplicateClientID() async throws {
        let broker = try await MosquittoBroker()
        let first = try NodeProcess(arguments: arguments(broker, nodeID: "twin"))
        #expect(await first.waitForLog("connected to"))
        let second = try NodeProcess(arguments: arguments(broker, nodeID: "twin"))
        #expect(await first.waitForLog("same client id", timeout: .seconds(15)), "log: \(first.log)")
        first.signal(SIGKILL)
        second.signal(SIGKILL)
        _ = await first.waitForExit()
        _ = await second.waitForExit()
    }

    @Test("a full disk under the wav: sink is logged once, the WAV stays valid and the node goes on answering")
    func wavSinkOnFullDisk() async throws {
        let broker = try await MosquittoBroker()
        let directory = try AudioFixtures.makeTemporaryDirectory("full-disk")
        defer { try? FileManager.default.removeItem(at: directory) }
        let library = directory.appendingPathComponent("music")
        try FileManager.default.createDirectory(at: library, withIntermediateDirectories: true)
        // Long enough to be still playing when the pause comes, however slowly a loaded machine gets there.
        for track in AudioFixtures.album(count: 1, seconds: 60, album: "Full", artist: "Disk", baseFrequency: 440) {
            _ = try await AudioFixtures.writeTone(track, in: library)
        }
        let wav = directory.appendingPathComponent("out.wav")
        // About 4 s of the WAV's 176,400 bytes a second; the small catalog stays below it (a fresh file's
        // write-ahead log, every migration in it, is about 400 KB: it left too little room under 400,000).
        let limit = 700_000
        let watcher = try await watcher(broker, "medianode/proc/#")
        let node = try NodeProcess(
            arguments: ["--broker", broker.url, "--node-id", "proc", "--audio-sink", "wav:" + wav.path,
                        "--library", library.path, "--database", directory.appendingPathComponent("catalog.sqlite").path],
            fileSizeLimit: limit)
        _ = try await watcher.first(timeout: .seconds(30)) { message in
            message.topic == "medianode/proc/content/tree/0/1"
                && (try? JSONValue(parsing: message.payload))?["children"]?[0] != nil
        }
        try await watcher.publish("medianode/proc/cmd/playItem", #"{"id":"play","indexPath":[0,1,0,0]}"#)
        let play = try await watcher.first(timeout: .seconds(20)) { $0.topic == "medianode/proc/result" }
        #expect(try JSONValue(parsing: play.payload)["status"] == "success", "\(String(decoding: play.payload, as: UTF8.self))")
        #expect(await node.waitForLog("cannot write to \(wav.path)"), "log: \(node.log)")
        // Still playing into the full file: the node answers, and says so once.
        try await Task.sleep(for: .seconds(1))
        try await watcher.publish("medianode/proc/cmd/pause", #"{"id":"pause"}"#)
        let pause = try await watcher.first(timeout: .seconds(20)) {
            $0.topic == "medianode/proc/result" && (try? JSONValue(parsing: $0.payload))?["id"] == "pause"
        }
        #expect(try JSONValue(parsing: pause.payload)["status"] == "success", "\(String(decoding: pause.payload, as: UTF8.self))")
        #expect(node.log.components(separatedBy: "cannot write to").count - 1 == 1, "log: \(node.log)")
        let rendered = try WAVFile(contentsOf: wav)
        #expect(rendered.riffSizeIsConsistent)
        #expect(rendered.declaredDataSize == rendered.availableDataSize)
        #expect(rendered.declaredDataSize % 4 == 0 && rendered.declaredDataSize + 44 <= limit)
        #expect(rendered.duration > 2, "the WAV holds the audio written before the disk filled")
        #expect(rendered.dominantFrequency(from: 0.5, length: 1).map { abs($0 - 440) < 10 } == true)
        node.signal(SIGTERM)
        #expect(await node.waitForExit() == 0, "log: \(node.log)")
        await watcher.disconnect()
    }

    @Test("at start a subscriber sees status and commands before any tree node, and a command sent then is answered")
    func startOrder() async throws {
        let broker = try await MosquittoBroker()
        let watcher = try await watcher(broker, "medianode/proc/#")
        let node = try NodeProcess(arguments: arguments(broker))
        let tree = "medianode/proc/content/tree"
        _ = try await watcher.first(timeout: .seconds(30)) { $0.topic == tree }
        // S19: the command subscription went out before the tree did, so a command sent on seeing the tree
        // reaches the node (the broker handles one connection's packets in order).
        try await watcher.publish("medianode/proc/cmd/browse", #"{"id":"s1","indexPath":[]}"#)
        let reply = try await watcher.first(timeout: .seconds(20)) {
            $0.topic == "medianode/proc/result" && (try? JSONValue(parsing: $0.payload))?["id"] == "s1"
        }
        #expect(try JSONValue(parsing: reply.payload)["status"] == "success")
        let topics = await watcher.received.map(\.topic)
        let firstTreeNode = try #require(topics.firstIndex { $0 == tree || $0.hasPrefix(tree + "/") })
        let status = try #require(topics.firstIndex(of: "medianode/proc/status"))
        let commands = try #require(topics.firstIndex(of: "medianode/proc/commands"))
        #expect(status < commands && commands < firstTreeNode, "order seen: \(topics)")
        node.signal(SIGTERM)
        _ = await node.waitForExit()
        await watcher.disconnect()
    }

    @Test("a node that cannot start (a sink GStreamer cannot build) exits with the reason and leaves no 'offline' behind")
    func failedStartLeavesNoWill() async throws {
        let broker = try await MosquittoBroker()
        let watcher = try await watcher(broker, "medianode/proc/#")
        var arguments = arguments(broker)
        arguments[arguments.firstIndex(of: "fake")!] = "nosuchsinkelement"
        let node = try NodeProcess(arguments: arguments)
        let status = await node.waitForExit(timeout: .seconds(30))
        #expect(status != nil && status != 0)
        #expect(node.log.contains("--audio-sink nosuchsinkelement"), "log: \(node.log)")
        // It connects while it starts; it disconnects cleanly on the way out, so the broker drops its will.
        try await Task.sleep(for: .milliseconds(500))
        let published = await watcher.received.map(\.topic).filter { $0.hasPrefix("medianode/proc/") }
        #expect(published.isEmpty, "published: \(published)")
        await watcher.disconnect()
    }

    @Test("SIGPIPE and SIGXFSZ, raised by writes that cannot succeed, leave the node running and answering")
    func writeSignalsAreIgnored() async throws {
        let (broker, watcher, node) = try await nodeShowingCommands()
        defer { broker.stop() }
        // Either signal's default action ends the process.
        node.signal(SIGPIPE)
        node.signal(SIGXFSZ)
        try await watcher.publish("medianode/proc/cmd/browse", #"{"id":"after-signals","indexPath":[]}"#)
        let reply = try await watcher.first(timeout: .seconds(20)) {
            $0.topic == "medianode/proc/result" && (try? JSONValue(parsing: $0.payload))?["id"] == "after-signals"
        }
        #expect(try JSONValue(parsing: reply.payload)["status"] == "success")
        #expect(await node.waitForExit(timeout: .milliseconds(200)) == nil, "the node exited: \(node.log)")
        let offline = await watcher.received.contains {
            $0.topic == "medianode/proc/status" && String(decoding: $0.payload, as: UTF8.self) == "offline"
        }
        #expect(!offline)
        node.signal(SIGTERM)
        _ = await node.waitForExit()
        await watcher.disconnect()
    }

    @Test("a node answers a command from the mosquitto_pub of the README")
    func answersMosquittoPub() async throws {
        let (broker, watcher, node) = try await nodeShowingCommands()
        defer { broker.stop() }
        let publish = try await ToolRun.capture("/usr/bin/mosquitto_pub", ["-p", String(broker.port), "-t", "medianode/proc/cmd/play", "-n"])
        #expect(publish.status == 0, "mosquitto_pub: \(publish.output)")
        let reply = try await watcher.first { $0.topic == "medianode/proc/result" }
        #expect(try JSONValue(parsing: reply.payload)["command"] == "play")
        node.signal(SIGTERM)
        _ = await node.waitForExit()
        await watcher.disconnect()
    }
}
