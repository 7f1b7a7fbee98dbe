import Foundation
import MQTTTransport
import MediaJSON
import MediaNodeTesting
import Testing

extension RealEngineCommandTests {
    /// A vehicle usually runs its own broker, bridged to the fleet's: the car works with no network, and the
    /// fleet sees and commands the node whenever the link is up. This runs deploy/bridge's vehicle broker and
    /// deploy/'s production fleet broker (TLS, passwords, ACL) as shipped, and a real node on the vehicle's.
    @Suite("A vehicle broker bridged to the fleet's broker (deploy/bridge)", .serialized)
    struct VehicleBridgeTests {
        static let users = [(name: "car1", password: "car1-secret"), (name: "dashboard", password: "dashboard-secret")]
        static let prefix = "medianode/car1"
        /// The bridge's link state on the fleet broker, as the example names it.
        static let link = "$SYS/broker/connection/car1/state"
        /// What a dashboard shows of the node: every retained topic it reads, and the tree's first levels.
        static let retainedTopics = ["status", "info", "commands", "nowplaying", "queue", "volume", "content/tree",
                                     "content/tree/0", "content/tree/0/1"].map { "\(prefix)/\($0)" }

        /// deploy/bridge/vehicle-mosquitto.conf, bridged to `fleet` over TLS with `fixtures`' CA.
        static func vehicleBroker(fleet: MosquittoBroker, fixtures: BrokerSecurityFixtures) async throws -> MosquittoBroker {
            try await MosquittoBroker { port, _ in
                try DeployExamples.text("bridge/vehicle-mosquitto.conf", replacing: [
                    "listener 1883 127.0.0.1": "listener \(port) 127.0.0.1",
                    "address fleet.example.com:8883": "address 127.0.0.1:\(fleet.port)",
                    "/etc/mosquitto/certs/ca.crt": fixtures.caCertificate.path,
                ]).components(separatedBy: "\n")
            }
        }

        /// A dashboard on the fleet broker, over TLS as the example's `dashboard` user, watching car1 and its link.
        static func dashboard(on fleet: MosquittoBroker, fixtures: BrokerSecurityFixtures) async throws -> TestMQTTClient {
            let client = try TestMQTTClient(brokerURL: "mqtts://dashboard:dashboard-secret@127.0.0.1:\(fleet.port)",
                                            tls: .init(caFile: fixtures.caCertificate.path))
            try await client.connect(timeout: .seconds(20))
            for filter in ["\(prefix)/#", link, "replies/dashboard/#"] { try await client.subscribe(filter) }
            return client
        }

        static func text(_ message: MQTTMessage?) -> String? { message.map { String(decoding: $0.payload, as: UTF8.self) } }

        static func reply(_ client: TestMQTTClient, id: String, timeout: Duration = .seconds(10)) async throws -> JSONValue {
            let message = try await client.first(timeout: timeout) {
                $0.topic == "\(prefix)/result" && (try? JSONValue(parsing: $0.payload))?["id"] == .string(id)
            }
            return try JSONValue(parsing: message.payload)
        }

        static func replyCount(_ client: TestMQTTClient, id: String) async -> Int {
            await client.messages(on: "\(prefix)/result").count { (try? JSONValue(parsing: $0.payload))?["id"] == .string(id) }
        }

        /// Waits until `client` holds, on `topic`, what `expected` holds there.
        static func agree(_ client: TestMQTTClient, with expected: TestMQTTClient, on topic: String, timeout: Duration) async throws {
            try await withTimeout(timeout, "\(topic) on the fleet broker as on the vehicle's") {
                while true {
                    let want = await expected.latest(on: topic)?.payload
                    if let want, await client.latest(on: topic)?.payload == want { return }
                    try await Task.sleep(for: .milliseconds(50))
                }
            }
        }

        @Test("a dashboard on the fleet broker sees the node's retained state, commands it and gets each reply once; the fleet broker restarts empty and the state comes back over the bridge")
        func bridgedNode() async throws {
            let scratch = try AudioFixtures.makeTemporaryDirectory("bridge")
            defer { try? FileManager.default.removeItem(at: scratch) }
            let fixtures = try await BrokerSecurityFixtures(in: scratch, users: Self.users)
            let fleet = try await DeployExamples.productionBroker(fixtures: fixtures, scratch: scratch)
            defer { fleet.stop() }
            let vehicle = try await Self.vehicleBroker(fleet: fleet, fixtures: fixtures)
            defer { vehicle.stop() }
            let library = scratch.appendingPathComponent("music")
            for track in AudioFixtures.album(count: 2, seconds: 6, album: "Bridged", artist: "Vehicle") {
                _ = try await AudioFixtures.writeTone(track, in: library)
            }
            let node = try NodeProcess(arguments: [
                "--broker", vehicle.url, "--node-id", "car1", "--audio-sink", "fake", "--library", library.path,
                "--database", scratch.appendingPathComponent("catalog.sqlite").path])
            defer { node.signal(SIGKILL) }
            let prefix = Self.prefix

            // The head unit, on the vehicle broker.
            let headUnit = try TestMQTTClient(brokerURL: vehicle.url)
            try await headUnit.connect()
            try await headUnit.subscribeAndSettle("\(prefix)/#")
            let dashboard = try await Self.dashboard(on: fleet, fixtures: fixtures)
            _ = try await dashboard.first(timeout: .seconds(60)) {
                $0.topic == "\(prefix)/status" && Self.text($0) == "online"
            }
            _ = try await dashboard.first(timeout: .seconds(60)) { message in
                message.topic == "\(prefix)/content/tree/0/1" && (try? JSONValue(parsing: message.payload))?["children"]?[0] != nil
            }
            #expect(Self.text(try await dashboard.first { $0.topic == Self.link }) == "1")

            // From the fleet: the reply comes on P/result and, over the MQTT 5 bridge, on the response topic.
            let correlation: [UInt8] = [0xCA, 0x01]
            try await dashboard.publish("\(prefix)/cmd/playItem", #"{"id":"play","indexPath":[0,1,0,0]}"#,
                                        properties: MQTTProperties(responseTopic: "replies/dashboard/1", correlationData: correlation))
            #expect(try await Self.reply(dashboard, id: "play", timeout: .seconds(30))["status"] == "success")
            let response = try await dashboard.first { $0.topic == "replies/dashboard/1" }
            #expect(response.properties.correlationData == correlation)
            #expect((try? JSONValue(parsing: response.payload))?["id"] == "play")
            _ = try await dashboard.first { $0.topic == "\(prefix)/nowplaying" && (try? JSONValue(parsing: $0.payload))?["state"] == "playing" }
            for (id, command, payload) in [("volume", "changeVolume", #""volume":0.4"#), ("pause", "pause", "")] {
                try await dashboard.publish("\(prefix)/cmd/\(command)", #"{"id":"\#(id)"\#(payload.isEmpty ? "" : ",")\#(payload)}"#)
                #expect(try await Self.reply(dashboard, id: id)["status"] == "success")
            }
            _ = try await dashboard.first { $0.topic == "\(prefix)/volume" && (try? JSONValue(parsing: $0.payload))?["volume"] == 0.4 }
            _ = try await dashboard.first { $0.topic == "\(prefix)/nowplaying" && (try? JSONValue(parsing: $0.payload))?["state"] == "paused" }
            // The head unit's own command goes out too (the fleet sees it and its reply), and comes back in to no one.
            try await headUnit.publish("\(prefix)/cmd/changeRepeatMode", #"{"id":"local","repeatType":"all"}"#)
            #expect(try await Self.reply(dashboard, id: "local")["status"] == "success")
            try await Task.sleep(for: .seconds(1))
            // The overlapping `out` and `in` patterns make no loop: each command reached the node once, once answered.
            for id in ["play", "volume", "pause", "local"] {
                #expect(await Self.replyCount(dashboard, id: id) == 1, "\(id) on the fleet broker")
                #expect(await Self.replyCount(headUnit, id: id) == 1, "\(id) on the vehicle broker")
            }
            #expect(await headUnit.messages(on: "\(prefix)/cmd/playItem").count == 1)
            #expect(await dashboard.messages(on: "\(prefix)/cmd/changeRepeatMode").count == 1)
            #expect(await dashboard.messages(on: "replies/dashboard/1").count == 1)
            await dashboard.disconnect()

            // The link cut: the fleet broker dies, and with it every retained message it held (no save on SIGKILL).
            await fleet.kill()
            #expect(!FileManager.default.fileExists(atPath: fleet.directory.appendingPathComponent("mosquitto.db").path))
            // The car goes on without it: the head unit turns the volume down meanwhile.
            try await headUnit.publish("\(prefix)/cmd/changeVolume", #"{"id":"offline","volume":0.3}"#)
            #expect(try await Self.reply(headUnit, id: "offline")["status"] == "success")
            _ = try await headUnit.first { $0.topic == "\(prefix)/volume" && (try? JSONValue(parsing: $0.payload))?["volume"] == 0.3 }
            try await Task.sleep(for: .seconds(1))
            let restoredAt = ContinuousClock.now
            try await fleet.start()

            // A dashboard on the restarted, empty fleet broker gets the node's current state: mosquitto sends
            // the retained topics under the bridge's `out` pattern again when the bridge reconnects.
            let later = try await Self.dashboard(on: fleet, fixtures: fixtures)
            for topic in Self.retainedTopics {
                try await Self.agree(later, with: headUnit, on: topic, timeout: .seconds(20))
            }
            let back = ContinuousClock.now - restoredAt
            #expect(back < .seconds(15), "the node's state back on the fleet broker after \(back)")
            #expect(Self.text(await later.latest(on: "\(prefix)/status")) == "online")
            #expect((try? JSONValue(parsing: await later.latest(on: "\(prefix)/volume")?.payload ?? []))?["volume"] == 0.3)
            #expect((try? JSONValue(parsing: await later.latest(on: "\(prefix)/nowplaying")?.payload ?? []))?["state"] == "paused")
            _ = try await later.first { $0.topic == Self.link && Self.text($0) == "1" }
            try await later.publish("\(prefix)/cmd/changeVolume", #"{"id":"after","volume":0.5}"#)
            #expect(try await Self.reply(later, id: "after")["status"] == "success")
            _ = try await later.first { $0.topic == "\(prefix)/volume" && (try? JSONValue(parsing: $0.payload))?["volume"] == 0.5 }

            // The vehicle out of reach: the fleet keeps the node's last `online`, and the link says `0`.
            await vehicle.kill()
            _ = try await later.first { $0.topic == Self.link && Self.text($0) == "0" }
            #expect(Self.text(await later.latest(on: "\(prefix)/status")) == "online")
            #expect(node.process.isRunning, "\(node.log)")
            print("vehicle bridge: the node's retained state back on the restarted fleet broker after \(back)")
            await later.disconnect()
            await headUnit.disconnect()
        }
    }
}
