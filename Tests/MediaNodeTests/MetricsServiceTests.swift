import ContentTree
import Foundation
import Logging
import MQTTTransport
import MediaJSON
import MediaNodeTesting
import NodeMetrics
import Playback
import Testing
@testable import MediaNode

@Suite("The metrics service publishes what the node counted")
struct MetricsServiceTests {
    /// A node on in-memory twins with metrics every `interval`, and a dashboard subscribed to its prefix.
    struct MeteredNode {
        let broker = InMemoryBroker()
        let transport: InMemoryTransport
        let dashboard: InMemoryTransport
        let node: Node
        let task: Task<Void, Never>

        init(interval: Duration) throws {
            transport = InMemoryTransport(broker: broker)
            dashboard = InMemoryTransport(broker: broker)
            dashboard.start()
            try dashboard.subscribe("medianode/metered/#", qos: 1)
            let catalog = InMemoryContentCatalog()
            catalog.add(ContentItem(identifier: "section:music", title: "Music", isContainer: true))
            var configuration = NodeConfiguration(nodeID: "metered", databasePath: ":memory:")
            configuration.metrics = MetricsSettings(interval: interval)
            node = Node(configuration: configuration, transport: transport,
                        engine: InMemoryAudioEngine(clock: SystemPlaybackClock()), catalog: catalog)
            task = Task { [node] in await node.run() }
        }

        var topics: TopicLayout { node.configuration.topics }

        func metrics() -> [JSONValue] {
            dashboard.received.filter { $0.topic == topics.metrics }.compactMap { try? JSONValue(parsing: $0.payload) }
        }

        func stop() async {
            await node.shutdown()
            await task.value
        }
    }

    @Test("P/metrics comes within a second of online, then every interval, counting replies by status")
    func publishedAtOnceAndEveryInterval() async throws {
        let metered = try MeteredNode(interval: .milliseconds(400))
        let topics = metered.topics
        let online = try await metered.dashboard.first(timeout: .seconds(60)) {
            $0.topic == topics.status && $0.payload == Array("online".utf8)
        }
        let first = try await metered.dashboard.first(timeout: .seconds(5)) { $0.topic == topics.metrics }
        #expect(first.receivedAt - online.receivedAt < .seconds(1))
        for id in ["a", "b"] {
            try metered.dashboard.publish(topic: topics.command("pause"), payload: Array(#"{"id":"\#(id)"}"#.utf8),
                                          qos: 1, retain: false, properties: MQTTProperties())
        }
        let deadline = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < deadline,
              !metered.metrics().contains(where: { $0["commands"]?["noActionableNowPlayingItem"] == 2 }) {
            try await Task.sleep(for: .milliseconds(50))
        }
        let counted = try #require(metered.metrics().first { $0["commands"]?["noActionableNowPlayingItem"] == 2 })
        #expect(counted["commands"]?["success"] == 0)
        #expect(counted["intervalSeconds"]?.numberValue == 0.4)
        #expect(counted["broker"]?["connects"] == 0, "the in-memory transport has no client that counts")
        let withReplies = metered.metrics().contains { ($0["replyMs"]?["max"]?.numberValue ?? 0) > 0 }
        #expect(withReplies, "no interval carried the two replies' times")
        // Every interval, not only on changes: a third comes 400 ms after the second.
        while ContinuousClock.now < deadline, metered.metrics().count < 3 { try await Task.sleep(for: .milliseconds(50)) }
        #expect(metered.metrics().count >= 3)
        await metered.stop()
    }

    @Test("as a playback observer it counts seconds played, stalls and errors")
    func followsPlayback() async throws {
        let backend = NodeMetricsBackend()
        let transport = InMemoryTransport(broker: InMemoryBroker())
        let service = MetricsService(
            backend: backend, settings: MetricsSettings(interval: .seconds(60)),
            retained: RetainedPublisher(transport: transport, logger: Logger(label: "test")), topic: "P/metrics",
            ready: Latch(), catalogFile: nil, logger: Logger(label: "test"))
        let began = ContinuousClock.now
        await service.playbackChanged(PlaybackSnapshot(state: .playing))
        try await Task.sleep(for: .milliseconds(1100))
        await service.playbackChanged(PlaybackSnapshot(state: .paused))
        // On a loaded machine the sleep can last longer than asked: the count follows the time really played.
        let played = Double((ContinuousClock.now - began).components.seconds)
        try await Task.sleep(for: .milliseconds(300))
        await service.playbackChanged(PlaybackSnapshot(state: .paused))
        await service.playbackReported(.stalled(identifier: "station:1"))
        await service.playbackReported(.error(identifier: "track:9", AudioError(.item, "gone")))
        await service.playbackReported(.trackStarted(identifier: "track:1"))
        let document = backend.document(at: service.moment())
        let seconds = document["playback"]?["secondsPlayed"]?.numberValue ?? -1
        #expect(seconds >= 1 && seconds <= played, "\(seconds) s counted, \(played) s played")
        #expect(document["playback"]?["stalls"] == 1)
        #expect(document["playback"]?["errors"] == 1)
    }

    @Test("--metrics-listen takes HOST:PORT, an IPv6 host in brackets too")
    func listenAddresses() {
        #expect(MetricsSettings.hostAndPort("127.0.0.1:9464")! == ("127.0.0.1", 9464))
        #expect(MetricsSettings.hostAndPort("[::1]:9464")! == ("::1", 9464))
        #expect(MetricsSettings.hostAndPort("9464") == nil)
        #expect(MetricsSettings.hostAndPort("host:99999") == nil)
    }
}
