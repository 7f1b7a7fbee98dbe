import Foundation
import MQTTTransport
import MediaNodeTesting
import RemoteCommands
import Testing
import MediaJSON

@Suite("The medianode process: last will, clean shutdown, broker outages")
struct NodeProcessTests {
    func arguments(_ broker: MosquittoBroker, nodeID: String = "proc") -> [String] {
        ["--broker", broker.url, "--node-id", nodeID, "--audio-sink", "fake",
         "--database", FileManager.default.temporaryDirectory.appendingPathComponent("mn-\(UUID()).sqlite").path]
    }

    func watcher(_ broker: MosquittoBroker, _ filter: String) async throws -> TestMQTTClient {
        let client = try TestMQTTClient(brokerURL: broker.url)
        try await client.connect()
        try await client.subscribeAndSettle(filter)
        return client
    }

    @Test("kill -9 of the node leaves 'offline' retained through its last will")
    func lastWillOnKill() async throws {
        let broker = try MosquittoBroker()
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
        let broker = try MosquittoBroker()
        let watcher = try await watcher(broker, "medianode/proc/status")
        let node = try NodeProcess(arguments: arguments(broker))
        _ = try await watcher.first { String(decoding: $0.payload, as: UTF8.self) == "online" }
        node.signal(signal)
        let status = await node.waitForExit()
        #expect(status == 0, "log: \(node.log)")
        _ = try await watcher.first { String(decoding: $0.payload, as: UTF8.self) == "offline" }
        // A clean MQTT DISCONNECT, so the broker discards the will; a dropped socket would log "closed its connection".
        #expect(broker.log.contains("Client medianode-proc disconnected."), "broker log: \(broker.log)")
        #expect(!broker.log.contains("Client medianode-proc closed its connection"), "broker log: \(broker.log)")
        await watcher.disconnect()
    }

    @Test("a broker that is down at start is retried, logged once, and the node comes online when it appears")
    func brokerDownAtStart() async throws {
        let broker = try MosquittoBroker(startNow: false)
        let node = try NodeProcess(arguments: arguments(broker))
        #expect(await node.waitForLog("cannot reach broker"))
        try await Task.sleep(for: .seconds(3))
        try broker.start()
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
        let broker = try MosquittoBroker()
        let first = try NodeProcess(arguments: arguments(broker, nodeID: "twin"))
        #expect(await first.waitForLog("connected to"))
        let second = try NodeProcess(arguments: arguments(broker, nodeID: "twin"))
        #expect(await first.waitForLog("same client id", timeout: .seconds(15)), "log: \(first.log)")
        first.signal(SIGKILL)
        second.signal(SIGKILL)
        _ = await first.waitForExit()
        _ = await second.waitForExit()
    }

    @Test("a node answers a command from the mosquitto_pub of the README")
    func answersMosquittoPub() async throws {
        let broker = try MosquittoBroker()
        let watcher = try await watcher(broker, "medianode/proc/#")
        let node = try NodeProcess(arguments: arguments(broker))
        _ = try await watcher.first { $0.topic == "medianode/proc/commands" }
        let publish = Process()
        publish.executableURL = URL(fileURLWithPath: "/usr/bin/mosquitto_pub")
        publish.arguments = ["-p", String(broker.port), "-t", "medianode/proc/cmd/play", "-n"]
        try publish.run()
        publish.waitUntilExit()
        let reply = try await watcher.first { $0.topic == "medianode/proc/result" }
        #expect(try JSONValue(parsing: reply.payload)["command"] == "play")
        node.signal(SIGTERM)
        _ = await node.waitForExit()
        await watcher.disconnect()
    }
}
