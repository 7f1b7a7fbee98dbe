import Foundation
import MQTTTransport
import MediaJSON
import MediaNodeTesting
import Testing

extension RealEngineCommandTests {
    /// A vehicle gateway or fleet backend runs more than one broker: the node must follow them as they go
    /// down and come back, with its whole state on the one it uses and its commands answered there once.
    @Suite("Several brokers: failover, fail-back, the will on each", .serialized)
    struct SeveralBrokersTests {
        /// A node playing an album on repeat, given `brokers` in this order.
        struct PlayingNode {
            let directory: URL
            let node: NodeProcess
            let prefix: String

            init(id: String, brokers: [MosquittoBroker], extra: [String] = []) async throws {
                directory = try AudioFixtures.makeTemporaryDirectory("brokers-\(id)")
                let library = directory.appendingPathComponent("music")
                for track in AudioFixtures.album(count: 2, seconds: 4, album: "Failover", artist: "Brokers") {
                    _ = try await AudioFixtures.writeTone(track, in: library)
                }
                prefix = "medianode/\(id)"
                node = try NodeProcess(arguments: brokers.flatMap { ["--broker", $0.url] } + [
                    "--node-id", id, "--audio-sink", "fake", "--library", library.path,
                    "--database", directory.appendingPathComponent("catalog.sqlite").path] + extra)
            }

            /// Plays the album on repeat through `client`, once the tree lists it.
            func play(through client: ConnectedClient) async throws {
                _ = try await client.client.first(timeout: .seconds(60)) { message in
                    message.topic == "\(prefix)/content/tree/0/1"
                        && (try? JSONValue(parsing: message.payload))?["children"]?[0] != nil
                }
                for (id, command, payload) in [("play", "playItem", #""indexPath":[0,1,0,0]"#),
                                               ("repeat", "changeRepeatMode", #""repeatType":"all""#)] {
                    try await client.client.publish("\(prefix)/cmd/\(command)", #"{"id":"\#(id)",\#(payload)}"#)
                    let reply = try await client.reply(prefix: prefix, id: id, timeout: .seconds(30))
                    #expect(reply["status"] == "success", "\(reply.jsonString)")
                }
            }

            func remove() {
                node.signal(SIGKILL)
                try? FileManager.default.removeItem(at: directory)
            }
        }

        static func statusTexts(_ client: ConnectedClient, prefix: String) async -> [String] {
            await client.client.messages(on: "\(prefix)/status").map { String(decoding: $0.payload, as: UTF8.self) }
        }

        /// Sends commands on `client`'s broker for a second, waits, and returns how many replies each got.
        static func answerCounts(_ client: ConnectedClient, prefix: String, round: Int) async throws -> [String: Int] {
            let sent = await client.send(prefix: prefix, round: round, for: .seconds(1), minimum: 10)
            try await Task.sleep(for: .seconds(2))
            let replies = await client.client.messages(on: "\(prefix)/result")
                .compactMap { try? JSONValue(parsing: $0.payload)["id"]?.stringValue }
            return Dictionary(uniqueKeysWithValues: sent.map { command in
                (command.id, replies.filter { $0 == command.id }.count)
            })
        }

        @Test("the first broker killed: within seconds the second has every retained topic and answers commands once; when the first is back the node returns, online there, and no offline lands on the second")
        func failoverAndFailback() async throws {
            let first = try await MosquittoBroker(), second = try await MosquittoBroker()
            defer { first.stop(); second.stop() }
            let playing = try await PlayingNode(id: "twin", brokers: [first, second], extra: ["--failback-interval", "1"])
            defer { playing.remove() }
            let prefix = playing.prefix

            let onFirst = try await ConnectedClient(broker: first, subscribing: "\(prefix)/#")
            try await playing.play(through: onFirst)
            let onSecond = try await ConnectedClient(broker: second, subscribing: "\(prefix)/#")
            // The node is on one broker at a time: the second has heard nothing from it yet.
            #expect(await onSecond.client.messages(on: "\(prefix)/status").isEmpty)

            let killedAt = ContinuousClock.now
            await first.kill()
            let moved = try await onSecond.retainedStateArrives(prefix: prefix, since: killedAt)
            #expect(moved < .seconds(5), "retained state on the second broker after \(moved)")
            let counts = try await Self.answerCounts(onSecond, prefix: prefix, round: 1)
            #expect(counts.count >= 10, "too few commands sent: \(counts.count)")
            for (id, count) in counts.sorted(by: { $0.key < $1.key }) {
                #expect(count == 1, "\(id) answered \(count) times on the second broker")
            }

            let restartedAt = ContinuousClock.now
            try await first.start()
            let back = try await ConnectedClient(broker: first, subscribing: "\(prefix)/#")
            let returned = try await back.retainedStateArrives(prefix: prefix, since: restartedAt)
            #expect(returned < .seconds(10), "retained state back on the first broker after \(returned)")
            // Commands go to the broker the node is on again, and no longer reach it through the second.
            let backCounts = try await Self.answerCounts(back, prefix: prefix, round: 2)
            for (id, count) in backCounts.sorted(by: { $0.key < $1.key }) {
                #expect(count == 1, "\(id) answered \(count) times on the first broker after fail-back")
            }
            try await onSecond.client.publish("\(prefix)/cmd/browse", #"{"id":"left","indexPath":[0]}"#)
            try await Task.sleep(for: .seconds(1))
            let leftReplies = await onSecond.client.messages(on: "\(prefix)/result")
                .filter { (try? JSONValue(parsing: $0.payload))?["id"] == "left" }
            #expect(leftReplies.isEmpty, "a command on the second broker was answered after fail-back")

            // Fail-back left the second broker with a clean DISCONNECT: its will was not sent.
            #expect(!(await Self.statusTexts(onSecond, prefix: prefix)).contains("offline"),
                    "the second broker: \(second.log)\nthe node: \(playing.node.log)")
            let late = try await ConnectedClient(broker: second, subscribing: "\(prefix)/status")
            let retained = try await late.client.first(timeout: .seconds(5)) { $0.topic == "\(prefix)/status" }
            #expect(String(decoding: retained.payload, as: UTF8.self) == "online")
            #expect(playing.node.log.contains("answers again: leaving"), "\(playing.node.log)")
            // One client id on every broker (mosquitto logs each connection with it).
            for broker in [first, second] {
                #expect(broker.log.contains(" as medianode-twin "), "\(broker.log)")
            }
            #expect(playing.node.process.isRunning)
            print("several brokers: retained state on the second broker \(moved) after the first was killed; "
                  + "back on the first \(returned) after it restarted (fail-back interval 1 s)")
            for client in [onFirst, onSecond, back, late] { await client.client.disconnect() }
        }

        @Test("the last will goes with every connection: killed while on the second broker, the node is offline there")
        func willOnTheSecondBroker() async throws {
            let first = try await MosquittoBroker(), second = try await MosquittoBroker()
            defer { first.stop(); second.stop() }
            let playing = try await PlayingNode(id: "willed", brokers: [first, second])
            defer { playing.remove() }
            let prefix = playing.prefix
            let onFirst = try await ConnectedClient(broker: first, subscribing: "\(prefix)/status")
            _ = try await onFirst.client.first(timeout: .seconds(60)) {
                $0.topic == "\(prefix)/status" && String(decoding: $0.payload, as: UTF8.self) == "online"
            }
            let onSecond = try await ConnectedClient(broker: second, subscribing: "\(prefix)/status")
            await first.kill()
            _ = try await onSecond.client.first(timeout: .seconds(10)) {
                String(decoding: $0.payload, as: UTF8.self) == "online"
            }
            playing.node.signal(SIGKILL)
            _ = try await onSecond.client.first(timeout: .seconds(10)) {
                String(decoding: $0.payload, as: UTF8.self) == "offline"
            }
            let late = try await ConnectedClient(broker: second, subscribing: "\(prefix)/status")
            let retained = try await late.client.first(timeout: .seconds(5)) { $0.topic == "\(prefix)/status" }
            #expect(String(decoding: retained.payload, as: UTF8.self) == "offline")
            for client in [onFirst, onSecond, late] { await client.client.disconnect() }
        }

        @Test("a config file's broker list: with the first down the node comes up on the second, and moves to the first once it starts")
        func configFileList() async throws {
            let first = try await MosquittoBroker(startNow: false), second = try await MosquittoBroker()
            defer { first.stop(); second.stop() }
            let directory = try AudioFixtures.makeTemporaryDirectory("brokers-config")
            defer { try? FileManager.default.removeItem(at: directory) }
            let prefix = "medianode/listed"
            let config = directory.appendingPathComponent("medianode.json")
            let document: JSONValue = [
                "broker": [.string(first.url), .string(second.url)], "failback-interval": 1, "node-id": "listed",
                "audio-sink": "fake", "database": .string(directory.appendingPathComponent("catalog.sqlite").path),
            ]
            try Data(document.jsonBytes).write(to: config)
            let node = try NodeProcess(arguments: ["--config", config.path])
            defer { node.signal(SIGKILL) }

            let onSecond = try await ConnectedClient(broker: second, subscribing: "\(prefix)/#")
            _ = try await onSecond.client.first(timeout: .seconds(60)) {
                $0.topic == "\(prefix)/status" && String(decoding: $0.payload, as: UTF8.self) == "online"
            }
            try await onSecond.client.publish("\(prefix)/cmd/changeRepeatMode", #"{"id":"listed","repeatType":"one"}"#)
            let reply = try await onSecond.reply(prefix: prefix, id: "listed")
            #expect(reply["status"] == "success", "\(reply.jsonString)")

            try await first.start()
            let onFirst = try await ConnectedClient(broker: first, subscribing: "\(prefix)/#")
            _ = try await onFirst.client.first(timeout: .seconds(10)) {
                $0.topic == "\(prefix)/status" && String(decoding: $0.payload, as: UTF8.self) == "online"
            }
            #expect(!(await Self.statusTexts(onSecond, prefix: prefix)).contains("offline"),
                    "the second broker: \(second.log)\nthe node: \(node.log)")
            for client in [onFirst, onSecond] { await client.client.disconnect() }
        }

        @Test("a node id with a dot is refused at start with an error that names it; nothing is published")
        func nodeIDWithADot() async throws {
            let broker = try await MosquittoBroker()
            defer { broker.stop() }
            let watcher = try await ConnectedClient(broker: broker, subscribing: "#")
            let directory = try AudioFixtures.makeTemporaryDirectory("brokers-id")
            defer { try? FileManager.default.removeItem(at: directory) }
            let node = try NodeProcess(arguments: [
                "--broker", broker.url, "--node-id", "car.1", "--audio-sink", "fake",
                "--database", directory.appendingPathComponent("catalog.sqlite").path])
            defer { node.signal(SIGKILL) }
            let status = await node.waitForExit(timeout: .seconds(30))
            #expect(status != nil && status != 0, "exit status \(String(describing: status))")
            #expect(node.log.contains("--node-id 'car.1' may hold only letters"), "\(node.log)")
            let seen = await watcher.client.received.filter { !$0.topic.hasPrefix("medianode-test-probe/") }
            #expect(seen.isEmpty, "published: \(seen.map(\.topic))")
            await watcher.client.disconnect()
        }

        @Test("a refused command subscription: not online while refused, asked again at QoS 0 every second, online and answering once granted")
        func refusedSubscription() async throws {
            let directory = try AudioFixtures.makeTemporaryDirectory("brokers-refused")
            defer { try? FileManager.default.removeItem(at: directory) }
            let broker = try await Self.broker(refusingSubscriptionTo: "medianode/refused/cmd/+", in: directory)
            defer { broker.stop() }
            let prefix = "medianode/refused"
            let watcher = try await ConnectedClient(broker: broker, subscribing: "\(prefix)/#")
            let node = try NodeProcess(arguments: [
                "--broker", broker.url, "--node-id", "refused", "--audio-sink", "fake", "--log-level", "debug",
                "--database", directory.appendingPathComponent("catalog.sqlite").path])
            defer { node.signal(SIGKILL) }

            #expect(await node.waitForLog("refused the subscription to \(prefix)/cmd/+ at QoS 1"), "\(node.log)")
            try await Task.sleep(for: .seconds(3))
            let retries = node.log.components(separatedBy: "refused the subscription to \(prefix)/cmd/+ at QoS 0").count - 1
            #expect((2...5).contains(retries), "asked again at QoS 0 \(retries) times in about 3 s: \(node.log)")
            #expect(await watcher.client.messages(on: "\(prefix)/status").isEmpty, "online while it cannot hear commands")

            let granted = try await ToolRun.capture("/usr/bin/mosquitto_ctrl", [
                "-p", "\(broker.port)", "-u", "admin", "-P", "adminpw",
                "dynsec", "removeRoleACL", "refused", "subscribeLiteral", "\(prefix)/cmd/+"])
            #expect(granted.status == 0, "\(granted.output)")
            _ = try await watcher.client.first(timeout: .seconds(10)) {
                $0.topic == "\(prefix)/status" && String(decoding: $0.payload, as: UTF8.self) == "online"
            }
            try await watcher.client.publish("\(prefix)/cmd/changeRepeatMode", #"{"id":"granted","repeatType":"one"}"#)
            let reply = try await watcher.reply(prefix: prefix, id: "granted")
            #expect(reply["status"] == "success", "\(reply.jsonString)")
            await watcher.client.disconnect()
        }

        @Test("a refused subscription to its own status: online at once, answering, and not asked for again")
        func refusedStatusSubscription() async throws {
            let directory = try AudioFixtures.makeTemporaryDirectory("brokers-refused-status")
            defer { try? FileManager.default.removeItem(at: directory) }
            let prefix = "medianode/nostatus"
            let broker = try await Self.broker(refusingSubscriptionTo: "\(prefix)/status", in: directory)
            defer { broker.stop() }
            let watcher = try await ConnectedClient(broker: broker, subscribing: "\(prefix)/#")
            let node = try NodeProcess(arguments: [
                "--broker", broker.url, "--node-id", "nostatus", "--audio-sink", "fake", "--log-level", "debug",
                "--database", directory.appendingPathComponent("catalog.sqlite").path])
            defer { node.signal(SIGKILL) }

            _ = try await watcher.client.first(timeout: .seconds(10)) {
                $0.topic == "\(prefix)/status" && String(decoding: $0.payload, as: UTF8.self) == "online"
            }
            try await watcher.client.publish("\(prefix)/cmd/changeRepeatMode", #"{"id":"answered","repeatType":"one"}"#)
            let reply = try await watcher.reply(prefix: prefix, id: "answered")
            #expect(reply["status"] == "success", "\(reply.jsonString)")
            try await Task.sleep(for: .seconds(2))
            let refusals = node.log.components(separatedBy: "refused the subscription to \(prefix)/status").count - 1
            #expect(refusals == 1, "asked once (at QoS 0), refused, and not asked again: \(node.log)")
            await watcher.client.disconnect()
        }

        /// A mosquitto whose dynamic security plugin refuses subscribing to `filter` and allows everything else
        /// (its plain ACL file grants every subscription and filters what it delivers instead).
        static func broker(refusingSubscriptionTo filter: String, in directory: URL) async throws -> MosquittoBroker {
            let security = directory.appendingPathComponent("dynamic-security.json")
            let initialized = try await ToolRun.capture("/usr/bin/mosquitto_ctrl", ["dynsec", "init", security.path, "admin", "adminpw"])
            #expect(initialized.status == 0, "\(initialized.output)")
            var document = try #require(
                try JSONSerialization.jsonObject(with: Data(contentsOf: security)) as? [String: Any])
            document["defaultACLAccess"] = [
                "publishClientSend": true, "publishClientReceive": true, "subscribe": true, "unsubscribe": true]
            document["roles"] = (document["roles"] as? [Any] ?? []) + [[
                "rolename": "refused",
                "acls": [["acltype": "subscribeLiteral", "topic": filter, "allow": false]],
            ]]
            document["groups"] = [["groupname": "anonymous", "roles": [["rolename": "refused"]], "clients": []]]
            document["anonymousGroup"] = "anonymous"
            try JSONSerialization.data(withJSONObject: document).write(to: security)
            // mosquitto started as root runs as its own user, which must read and rewrite the file.
            try FileManager.default.setAttributes([.posixPermissions: 0o777], ofItemAtPath: directory.path)
            try FileManager.default.setAttributes([.posixPermissions: 0o666], ofItemAtPath: security.path)
            let plugin = try #require(
                ((try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib")) ?? []).map { "/usr/lib/\($0)/mosquitto_dynamic_security.so" }
                    .first { FileManager.default.fileExists(atPath: $0) },
                "mosquitto's dynamic security plugin is not installed")
            return try await MosquittoBroker(extraConfiguration: [
                "plugin \(plugin)",
                "plugin_opt_config_file \(security.path)",
            ])
        }
    }
}
