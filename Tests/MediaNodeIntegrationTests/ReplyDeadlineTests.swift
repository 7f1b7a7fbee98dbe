import ContentTree
import Foundation
import MQTTTransport
import MediaJSON
import MediaNode
import MediaNodeTesting
import Playback
import Testing

/// The lost reply of the hostile-input issue: a stalled audio engine held the playback lane, and the
/// commands behind it were answered only after a client had given up (or not at all, as it seemed).
@Suite("A stalled audio engine still leaves every command answered, once, within the reply deadline")
struct ReplyDeadlineTests {
    @Test("a seek stuck in the engine and the commands queued behind it are each answered commandFailed in time")
    func stalledEngine() async throws {
        let broker = try await MosquittoBroker()
        defer { broker.stop() }
        let engine = InMemoryAudioEngine(clock: SystemPlaybackClock())
        let catalog = InMemoryContentCatalog()
        catalog.add(ContentItem(identifier: "section:music", title: "Music", isContainer: true))
        catalog.add(ContentItem(identifier: "track:1", title: "One", isPlayable: true, uri: "file:///one.ogg",
                                duration: 120), under: "section:music")
        let configuration = NodeConfiguration(
            broker: try BrokerURL(parsing: broker.url), nodeID: "stall", databasePath: ":memory:",
            replyDeadline: .seconds(1))
        var mqtt = configuration.mqttConfiguration
        mqtt.reconnectDelay = (0, 1)
        let node = Node(configuration: configuration, transport: try MQTTClient(configuration: mqtt), engine: engine,
                        catalog: catalog)
        let task = Task { await node.run() }
        defer { task.cancel() }
        let client = try TestMQTTClient(brokerURL: broker.url)
        try await client.connect()
        try await client.subscribeAndSettle("medianode/stall/#")
        // Capabilities go out once the command subscription is made.
        _ = try await client.first(timeout: .seconds(20)) { $0.topic == "medianode/stall/commands" }
        func send(_ command: String, _ payload: String) async throws -> (JSONValue, Duration) {
            let id = UUID().uuidString
            let sent = ContinuousClock.now
            try await client.publish("medianode/stall/cmd/\(command)", #"{"id":"\#(id)"\#(payload)}"#)
            let reply = try await client.first(timeout: .seconds(20)) {
                $0.topic == "medianode/stall/result" && (try? JSONValue(parsing: $0.payload))?["id"] == .string(id)
            }
            return (try JSONValue(parsing: reply.payload), ContinuousClock.now - sent)
        }
        #expect(try await send("playItem", #","identifier":"track:1""#).0["status"] == "success")
        engine.stallSeeks(for: .seconds(8))
        // The seek holds the lane for 8 s and the pause waits behind it; the deadline is 1 s. The pause goes
        // once the seek is in the engine, so it cannot overtake it.
        async let seek = send("changePlaybackPosition", #","positionTime":30"#)
        let sent = ContinuousClock.now
        while !engine.calls.contains(.seek(30)), ContinuousClock.now - sent < .seconds(5) {
            try await Task.sleep(for: .milliseconds(5))
        }
        async let pause = send("pause", "")
        let (seekReply, seekTime) = try await seek
        let (pauseReply, pauseTime) = try await pause
        #expect(seekReply["status"] == "commandFailed")
        #expect(seekReply["message"]?.stringValue?.contains("may still take effect") == true, "\(seekReply)")
        #expect(pauseReply["status"] == "commandFailed")
        #expect(pauseReply["message"]?.stringValue?.contains("not performed") == true, "\(pauseReply)")
        // Well before the stalled seek returns, with room for a loaded machine.
        #expect(seekTime < .seconds(5) && pauseTime < .seconds(5), "\(seekTime), \(pauseTime)")
        // The pause was refused, so it must not have happened; the seek's late result is not sent.
        engine.stallSeeks(for: nil)
        try await Task.sleep(for: .seconds(8) - min(seekTime, pauseTime) + .seconds(1))
        #expect(!engine.calls.contains(.pause), "the refused pause reached the engine: \(engine.calls)")
        let replies = await client.messages(on: "medianode/stall/result").filter {
            (try? JSONValue(parsing: $0.payload))?["command"] == "changePlaybackPosition"
        }
        #expect(replies.count == 1, "the seek was answered \(replies.count) times")
        // Once the engine is back the lane answers normally again.
        let (after, _) = try await send("pause", "")
        #expect(after["status"] == "success", "\(after)")
        await client.disconnect()
    }
}
