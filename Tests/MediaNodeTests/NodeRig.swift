import ContentTree
import Foundation
import Logging
import MQTTTransport
import MediaJSON
import MediaNode
import MediaNodeTesting
import Playback

/// A node on in-memory twins, with a dashboard: a second client of the same in-memory broker, subscribed
/// to everything under the node's prefix. No broker process, no GStreamer, no files.
struct NodeRig {
    let broker = InMemoryBroker()
    let transport: InMemoryTransport
    let dashboard: InMemoryTransport
    let engine = InMemoryAudioEngine(clock: SystemPlaybackClock())
    let catalog = InMemoryContentCatalog()
    let node: Node
    let task: Task<Void, Never>
    var topics: TopicLayout { node.configuration.topics }

    /// Starts the node on a catalog with one album of `tracks` tracks, and waits for its capabilities.
    /// - Parameter retainedBeforeStart: messages a vehicle left retained on the broker before the node starts.
    static func start(tracks: Int = 2, retainedBeforeStart: [(topic: String, payload: String)] = [],
                      logger: Logger = Logger(label: "medianode")) async throws -> NodeRig {
        try await NodeRig(tracks: tracks, retainedBeforeStart: retainedBeforeStart, logger: logger).started()
    }

    private init(tracks: Int, retainedBeforeStart: [(topic: String, payload: String)], logger: Logger) throws {
        transport = InMemoryTransport(broker: broker)
        dashboard = InMemoryTransport(broker: broker)
        if !retainedBeforeStart.isEmpty {
            let vehicle = InMemoryTransport(broker: broker)
            vehicle.start()
            for (topic, payload) in retainedBeforeStart {
                try vehicle.publish(topic: topic, payload: Array(payload.utf8), qos: 1, retain: true, properties: MQTTProperties())
            }
        }
        catalog.add(ContentItem(identifier: "section:music", title: "Music", isContainer: true))
        catalog.add(ContentItem(identifier: "album:1", title: "Album", isContainer: true), under: "section:music")
        for number in 1...max(1, tracks) {
            catalog.add(
                ContentItem(identifier: "track:\(number)", title: "Track \(number)", isPlayable: true,
                            uri: "file:///music/\(number).ogg", artist: "Band", albumTitle: "Album", duration: 120,
                            trackNumber: number),
                under: "album:1")
        }
        node = Node(configuration: NodeConfiguration(nodeID: "unit", databasePath: ":memory:"), transport: transport,
                    engine: engine, catalog: catalog, logger: logger)
        task = Task { [node] in await node.run() }
    }

    private func started() async throws -> NodeRig {
        dashboard.start()
        try dashboard.subscribe("\(topics.prefix)/#", qos: 1)
        // Generous: at the start of a run, other suites' synchronous set-up (broker processes, audio
        // fixtures) can hold every thread of the cooperative pool for ten seconds and more, and this wait
        // may begin just before; the node itself is up in milliseconds.
        _ = try await dashboard.first(timeout: .seconds(60)) { $0.topic == topics.commands }
        return self
    }

    /// Sends a command as a dashboard would and returns its reply on `P/result`.
    func request(_ command: String, _ fields: String = "") async throws -> JSONValue {
        let id = UUID().uuidString
        try dashboard.publish(
            topic: topics.command(command), payload: Array(#"{"id":"\#(id)"\#(fields)}"#.utf8), qos: 1, retain: false,
            properties: MQTTProperties())
        let reply = try await dashboard.first {
            $0.topic == topics.result && (try? JSONValue(parsing: $0.payload))?["id"] == .string(id)
        }
        return try JSONValue(parsing: reply.payload)
    }

    /// The retained document on `topic` once `condition` holds for it.
    func retained(_ topic: String, timeout: Duration = .seconds(10), until condition: (JSONValue) -> Bool)
        async throws -> JSONValue
    {
        let deadline = ContinuousClock.now + timeout
        while true {
            if let message = broker.retained(topic), let document = try? JSONValue(parsing: message.payload),
               condition(document) {
                return document
            }
            guard ContinuousClock.now < deadline else {
                let last = broker.retained(topic).map { String(decoding: $0.payload, as: UTF8.self) } ?? "nothing"
                throw NodeRigTimeout(description: "\(topic) never matched; it holds \(last)")
            }
            try await Task.sleep(for: .milliseconds(5))
        }
    }

    func stop() async {
        await node.shutdown()
        task.cancel()
        _ = await task.value
        await dashboard.shutdown()
    }
}

struct NodeRigTimeout: Error, CustomStringConvertible {
    var description: String
}
