import Foundation
import MediaJSON
import MediaNodeTesting
import Testing

@Suite("What Home Assistant does not show")
struct HomeAssistantRefusalTests {
    @Test("a text of spaces only from Home Assistant's Announce entity is refused and the node's log says so, as a warning")
    func blankAnnounceIsLogged() async throws {
        let scratch = try AudioFixtures.makeTemporaryDirectory("ha-refusal")
        defer { try? FileManager.default.removeItem(at: scratch) }
        let broker = try await MosquittoBroker()
        let client = try TestMQTTClient(brokerURL: broker.url)
        try await client.connect()
        try await client.subscribeAndSettle("homeassistant/device/#")
        try await client.subscribeAndSettle("medianode/ha-blank/#")
        let node = try NodeProcess(arguments: [
            "--broker", broker.url, "--node-id", "ha-blank", "--audio-sink", "fake",
            "--database", scratch.appendingPathComponent("catalog.sqlite").path, "--homeassistant",
        ])
        defer { node.signal(SIGKILL) }
        let discovery = try JSONValue(parsing: try await client.first(timeout: .seconds(30)) {
            $0.topic == "homeassistant/device/ha-blank/config"
        }.payload)
        let entity = try #require(discovery["cmps"]?["announce"], "no Announce entity (eSpeak NG installed?): \(discovery.jsonString)")
        let topic = try #require(entity["command_topic"]?.stringValue)
        let template = try #require(entity["command_template"]?.stringValue)

        // What Home Assistant publishes for "   " (its `to_json` filter makes the value a JSON string).
        let payload = template.replacingOccurrences(of: "{{ value | to_json }}", with: JSONValue.string("   ").jsonString)
        try await client.publish(topic, payload)
        let reply = try JSONValue(parsing: try await client.first(timeout: .seconds(20)) {
            $0.topic == "medianode/ha-blank/result" && (try? JSONValue(parsing: $0.payload))?["command"] == "announce"
        }.payload)
        #expect(reply["status"] == "commandFailed", "\(reply.jsonString)")
        #expect(await node.waitForLog("warning"), "log: \(node.log)")
        let line = node.log.split(separator: "\n").first { $0.contains("Home Assistant") && $0.contains("refused") }
        #expect(line?.contains("warning") == true && line?.contains("'text' must not be empty") == true, "log: \(node.log)")
        node.signal(SIGTERM)
        _ = await node.waitForExit()
        await client.disconnect()
        broker.stop()
    }
}
