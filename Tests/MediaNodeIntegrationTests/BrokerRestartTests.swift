import Foundation
import MQTTTransport
import MediaJSON
import MediaNodeTesting
import Playback
import Testing

extension RealEngineCommandTests {
    /// The broker of a vehicle restarts (an update, a crash): the node must come back by itself, answer every
    /// command it got, and put its retained state back before a dashboard notices.
    @Suite("Broker killed and restarted while commands flow", .serialized)
    struct BrokerRestartTests {
        /// How many kills: `MEDIANODE_BROKER_RESTARTS`, default 20 (about 50 s on a 2-core machine).
        static var restarts: Int {
            ProcessInfo.processInfo.environment["MEDIANODE_BROKER_RESTARTS"].flatMap(Int.init) ?? 20
        }

        /// A command acknowledged by the broker this long before the kill must have its reply by then: the
        /// rest were in flight when the broker died, and MQTT cannot promise them anything.
        static let settled: Duration = .seconds(1)

        @Test("killed and restarted 20 times: every command sent while connected is answered once, retained state is back within 2 s")
        func survivesBrokerRestarts() async throws {
            let directory = try AudioFixtures.makeTemporaryDirectory("broker-restarts")
            defer { try? FileManager.default.removeItem(at: directory) }
            let library = directory.appendingPathComponent("music")
            for track in AudioFixtures.album(count: 2, seconds: 4, album: "Restarts", artist: "Broker") {
                _ = try await AudioFixtures.writeTone(track, in: library)
            }
            let broker = try await MosquittoBroker()
            defer { broker.stop() }
            let prefix = "medianode/restart"
            let node = try NodeProcess(arguments: [
                "--broker", broker.url, "--node-id", "restart", "--audio-sink", "fake", "--library", library.path,
                "--database", directory.appendingPathComponent("catalog.sqlite").path])
            defer { node.signal(SIGKILL) }

            // Playing, repeating the album, so the node is busy with audio through every restart.
            let setup = try await ConnectedClient(broker: broker, subscribing: "\(prefix)/#")
            _ = try await setup.client.first(timeout: .seconds(60)) { message in
                message.topic == "\(prefix)/content/tree/0/1"
                    && (try? JSONValue(parsing: message.payload))?["children"]?[0] != nil
            }
            for (id, command, payload) in [("play", "playItem", #""indexPath":[0,1,0,0]"#),
                                           ("repeat", "changeRepeatMode", #""repeatType":"all""#)] {
                try await setup.client.publish("\(prefix)/cmd/\(command)", #"{"id":"\#(id)",\#(payload)}"#)
                let reply = try await setup.reply(prefix: prefix, id: id, timeout: .seconds(30))
                #expect(reply["status"] == "success", "\(reply.jsonString)")
            }
            await setup.client.disconnect()

            var random = SeededGenerator(seed: 23)
            var checked = 0, answered = 0, inFlightAnswered = 0, slowest: Duration = .zero
            for round in 1...Self.restarts {
                let started = ContinuousClock.now
                // A fresh client per broker life: libmosquitto would otherwise resend an unacknowledged command
                // to the next broker, and a node answering both copies would be right to.
                let flow = try await ConnectedClient(broker: broker, subscribing: "\(prefix)/#")
                let backIn = try await flow.retainedStateArrives(prefix: prefix, since: started)
                slowest = max(slowest, backIn)
                #expect(backIn < .seconds(2), "round \(round): retained state back after \(backIn)")

                let sent = await flow.send(prefix: prefix, round: round,
                                           for: .milliseconds(Int.random(in: 1000...2000, using: &random)))
                let replies = await flow.client.messages(on: "\(prefix)/result")
                    .compactMap { try? JSONValue(parsing: $0.payload)["id"]?.stringValue }
                await broker.kill()
                let killedAt = ContinuousClock.now
                for command in sent {
                    let count = replies.filter { $0 == command.id }.count
                    #expect(count <= 1, "round \(round): \(command.id) answered \(count) times")
                    if let acknowledged = command.acknowledged, killedAt - acknowledged >= Self.settled {
                        checked += 1
                        if count == 1 { answered += 1 }
                        #expect(count == 1, "round \(round): \(command.id), acknowledged \(killedAt - acknowledged) before the kill, got no reply")
                    } else if count == 1 {
                        inFlightAnswered += 1
                    }
                }
                await flow.client.disconnect()
                try await broker.start()
            }
            #expect(checked > Self.restarts * 5, "too few commands got through to prove anything: \(checked)")
            #expect(node.process.isRunning, "log: \(node.log)")
            print("broker restarts survived: \(Self.restarts); commands answered \(answered) of \(checked) that had to be, "
                  + "and \(inFlightAnswered) sent within \(Self.settled) of a kill; slowest return of retained state \(slowest)")
        }
    }
}

/// One test client for one life of the broker, sending commands and collecting their replies.
struct ConnectedClient {
    let client: TestMQTTClient

    struct SentCommand {
        var id: String
        var acknowledged: ContinuousClock.Instant?
    }

    init(broker: MosquittoBroker, subscribing filter: String) async throws {
        client = try TestMQTTClient(brokerURL: broker.url)
        try await client.connect(timeout: .seconds(20))
        try await client.subscribeAndSettle(filter)
    }

    /// Waits for status (online), now playing (still playing), the tree root, the queue (repeating all) and
    /// the commands from the node on a broker that started empty, and returns how long after `since` the last came.
    func retainedStateArrives(prefix: String, since: ContinuousClock.Instant) async throws -> Duration {
        let wanted: [(String, @Sendable (MQTTMessage) -> Bool)] = [
            ("status", { String(decoding: $0.payload, as: UTF8.self) == "online" }),
            ("nowplaying", { (try? JSONValue(parsing: $0.payload))?["state"] == "playing" }),
            ("content/tree", { (try? JSONValue(parsing: $0.payload))?["childCount"] != nil }),
            ("queue", { (try? JSONValue(parsing: $0.payload))?["repeatMode"] == "all" }),
            ("commands", { (try? JSONValue(parsing: $0.payload))?["play"] != nil }),
        ]
        for (suffix, matches) in wanted {
            let topic = "\(prefix)/\(suffix)"
            _ = try await client.first(timeout: .seconds(20)) { $0.topic == topic && matches($0) }
        }
        return ContinuousClock.now - since
    }

    func reply(prefix: String, id: String, timeout: Duration = .seconds(10)) async throws -> JSONValue {
        let message = try await client.first(timeout: timeout) {
            $0.topic == "\(prefix)/result" && (try? JSONValue(parsing: $0.payload))?["id"] == .string(id)
        }
        return try JSONValue(parsing: message.payload)
    }

    /// Sends a repeat-mode change or a browse every 20 ms for `duration`, each acknowledged by the broker,
    /// and returns them with the time of their acknowledgement.
    /// Sends for `duration`, and at least `minimum` commands (on a loaded machine each broker
    /// acknowledgement can take tens of milliseconds).
    func send(prefix: String, round: Int, for duration: Duration, minimum: Int = 0) async -> [SentCommand] {
        var sent: [SentCommand] = []
        let end = ContinuousClock.now + duration
        while ContinuousClock.now < end || sent.count < minimum {
            let id = "r\(round)-\(sent.count)"
            let (command, payload) = sent.count % 2 == 0
                ? ("changeRepeatMode", #"{"id":"\#(id)","repeatType":"all"}"#)
                : ("browse", #"{"id":"\#(id)","indexPath":[0]}"#)
            var entry = SentCommand(id: id)
            do {
                try await withTimeout(.seconds(2), "the broker's acknowledgement of \(id)") {
                    try await client.client.publishAndWait(topic: "\(prefix)/cmd/\(command)", payload: Array(payload.utf8))
                }
                entry.acknowledged = .now
            } catch {}
            sent.append(entry)
            try? await Task.sleep(for: .milliseconds(20))
        }
        return sent
    }
}
