import Foundation
import MQTTTransport
import MediaJSON
import MediaNodeTesting
import Testing

/// A node obeys every command it receives; what keeps strangers out is the broker. This runs deploy/'s
/// production example (TLS, passwords, per-node ACL) as shipped, with throwaway certificates.
@Suite("The deploy/ TLS, password and ACL example on a real broker", .serialized)
final class BrokerSecurityTests {
    let scratch: URL
    let fixtures: BrokerSecurityFixtures
    let broker: MosquittoBroker
    static let users = [(name: "car1", password: "car1-secret"), (name: "car2", password: "car2-secret"),
                        (name: "dashboard", password: "dashboard-secret")]

    init() async throws {
        scratch = try AudioFixtures.makeTemporaryDirectory("security")
        let fixtures = try await BrokerSecurityFixtures(in: scratch, users: Self.users)
        self.fixtures = fixtures
        broker = try await DeployExamples.productionBroker(fixtures: fixtures, scratch: scratch)
    }

    deinit {
        broker.stop()
        try? FileManager.default.removeItem(at: scratch)
    }

    func scratchPath(_ name: String) -> String { scratch.appendingPathComponent(name).path }

    func url(_ user: String) -> String {
        let password = Self.users.first { $0.name == user }!.password
        return "mqtts://\(user):\(password)@127.0.0.1:\(broker.port)"
    }

    /// The dashboard of the example ACL, over TLS, watching car1.
    func dashboard() async throws -> TestMQTTClient {
        let client = try TestMQTTClient(brokerURL: url("dashboard"), tls: .init(caFile: fixtures.caCertificate.path))
        try await client.connect(timeout: .seconds(20))
        try await client.subscribe("medianode/car1/#")
        return client
    }

    /// mosquitto_sub or mosquitto_pub over TLS with the example's CA, as an operator would try them.
    func tool(_ name: String, user: String?, password: String? = nil, _ arguments: [String]) async throws
        -> (status: Int32, output: String) {
        var credentials: [String] = []
        if let user {
            credentials = ["-u", user, "-P", password ?? Self.users.first { $0.name == user }!.password]
        }
        // SIGKILL after 10 s: -W relies on SIGALRM, which a child of the test runner may inherit blocked.
        return try await ToolRun.capture("timeout", ["-s", "KILL", "10", name, "-h", "127.0.0.1", "-p", "\(broker.port)", "--cafile", fixtures.caCertificate.path,
                                          "-V", "mqttv5"] + credentials + arguments)
    }

    /// What the broker said to a publish: MQTT 5 lets it refuse in the acknowledgement.
    static func outcome(_ publish: () async throws -> Void) async -> String {
        do {
            try await publish()
            return "acknowledged (and dropped)"
        } catch {
            return "\(error)"
        }
    }

    func startNode() throws -> NodeProcess {
        try NodeProcess(arguments: [
            "--broker", url("car1"), "--ca-file", fixtures.caCertificate.path, "--node-id", "car1",
            "--audio-sink", "fake", "--database", scratchPath("car1.sqlite")])
    }

    @Test("the node connects over TLS with the example's CA and its own password, and answers the dashboard")
    func nodeConnectsOverTLS() async throws {
        let node = try startNode()
        defer { node.signal(SIGKILL) }
        let dashboard = try await dashboard()
        _ = try await dashboard.first(timeout: .seconds(30)) {
            $0.topic == "medianode/car1/status" && String(decoding: $0.payload, as: UTF8.self) == "online"
        }
        try await dashboard.publish("medianode/car1/cmd/pause", #"{"id":"from-dashboard"}"#)
        let reply = try await dashboard.first(timeout: .seconds(20)) {
            $0.topic == "medianode/car1/result" && (try? JSONValue(parsing: $0.payload))?["id"] == "from-dashboard"
        }
        #expect(try JSONValue(parsing: reply.payload)["status"] == "noActionableNowPlayingItem")
        #expect(node.log.contains("connected to mqtts://"), "log: \(node.log)")
        await dashboard.disconnect()
    }

    @Test("a client without credentials is refused, and so is one with a wrong password")
    func strangersCannotConnect() async throws {
        let anonymous = try await tool("mosquitto_sub", user: nil, ["-t", "medianode/#", "-C", "1"])
        #expect(anonymous.status != 0)
        #expect(anonymous.output.lowercased().contains("not authori"), "\(anonymous.output)")
        let guessed = try await tool("mosquitto_sub", user: "car1", password: "guess", ["-t", "medianode/#", "-C", "1"])
        #expect(guessed.status != 0)
        #expect(guessed.output.lowercased().contains("not authori"), "\(guessed.output)")
    }

    @Test("another node's credentials can neither command this node nor read its topics")
    func otherNodesAreFencedOff() async throws {
        let node = try startNode()
        defer { node.signal(SIGKILL) }
        let dashboard = try await dashboard()
        _ = try await dashboard.first(timeout: .seconds(30)) {
            $0.topic == "medianode/car1/status" && String(decoding: $0.payload, as: UTF8.self) == "online"
        }
        let car2 = try TestMQTTClient(brokerURL: url("car2"), tls: .init(caFile: fixtures.caCertificate.path))
        try await car2.connect(timeout: .seconds(20))
        try await car2.subscribe("medianode/car1/#")
        // A round trip on car2's own command topic, which its ACL lets it write and read: once it is back,
        // the broker has dealt with the subscription before it.
        try await car2.client.publishAndWait(topic: "medianode/car2/cmd/probe", payload: [])
        try await car2.subscribe("medianode/car2/cmd/probe")
        try await car2.client.publishAndWait(topic: "medianode/car2/cmd/probe", payload: [])
        _ = try await car2.first(timeout: .seconds(20)) { $0.topic == "medianode/car2/cmd/probe" }

        // car2 commands car1: the broker drops it. The dashboard's pause behind it, on the same lane, is
        // answered, so car1 would have answered the intruder's first.
        let refusal = await Self.outcome { try await car2.client.publishAndWait(topic: "medianode/car1/cmd/pause",
                                                                              payload: Array(#"{"id":"intruder"}"#.utf8)) }
        try await dashboard.publish("medianode/car1/cmd/pause", #"{"id":"behind-intruder"}"#)
        _ = try await dashboard.first(timeout: .seconds(20)) {
            $0.topic == "medianode/car1/result" && (try? JSONValue(parsing: $0.payload))?["id"] == "behind-intruder"
        }
        let intruder = await dashboard.messages(on: "medianode/car1/result")
            .filter { (try? JSONValue(parsing: $0.payload))?["id"] == "intruder" }
        #expect(intruder.isEmpty, "car1 obeyed car2")
        // car2 read nothing of car1's: not the retained status, not the reply the dashboard just got.
        let seen = await car2.received.map(\.topic).filter { $0.hasPrefix("medianode/car1/") }
        #expect(seen.isEmpty, "car2 read car1's topics: \(seen)")
        // Nor may car2 pose as car1 on car1's own topics.
        let overwrite = await Self.outcome { try await car2.client.publishAndWait(
            topic: "medianode/car1/status", payload: Array("offline".utf8), retain: true) }
        let late = try await self.dashboard()
        let status = try await late.first(timeout: .seconds(20)) { $0.topic == "medianode/car1/status" }
        #expect(String(decoding: status.payload, as: UTF8.self) == "online", "car2 overwrote car1's status")
        print("the broker answered car2's command to car1 with: \(refusal); its status overwrite with: \(overwrite)")
        await late.disconnect()
        await car2.disconnect()
        await dashboard.disconnect()
    }
}
