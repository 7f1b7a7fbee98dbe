import CatalogStore
import ContentTree
import Foundation
import GStreamerAudio
import Logging
import MQTTTransport
import MediaJSON
import MediaNode
import MediaNodeTesting

/// A node with a real catalog file, real GStreamer (rendering into a WAV file) and a generated library,
/// against a real broker, with a test client subscribed to everything under the prefix.
struct ContentRig {
    let broker: MosquittoBroker
    let directory: URL
    let library: URL
    let database: CatalogDatabase
    let node: Node
    let task: Task<Void, Never>
    let client: TestMQTTClient
    var topics: TopicLayout { node.configuration.topics }
    /// Where the node's WAV sink renders.
    var wav: URL { directory.appendingPathComponent("out.wav") }
    /// The same node seen through the helpers of `RunningNode` (commands, retained topics, events, the WAV).
    var running: RunningNode { RunningNode(broker: broker, node: node, task: task, client: client, wavURL: wav) }

    /// Two albums: Alpha (3 tracks) and Beta (2 tracks), each tone `seconds` long.
    static func makeLibrary(in directory: URL, seconds: Double = 4) async throws -> URL {
        let library = directory.appendingPathComponent("music")
        for (name, count, frequency) in [("Alpha", 3, 440), ("Beta", 2, 1320)] {
            let folder = library.appendingPathComponent(name)
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            for track in AudioFixtures.album(count: count, seconds: seconds, album: name, artist: "Artist \(name)",
                                             baseFrequency: frequency) {
                _ = try await AudioFixtures.writeTone(track, in: folder)
            }
        }
        return library
    }

    static func start(
        broker: MosquittoBroker? = nil, directory: URL? = nil, withLibrary: Bool = true, remoteCatalogs: [String] = [],
        content: ContentSettings = ContentSettings(progressInterval: .milliseconds(500)),
        artworkTimeout: Duration = .seconds(8), autoDownload: Int = 0, logger: Logger = Logger(label: "medianode"),
        configure: (inout NodeConfiguration) -> Void = { _ in }
    ) async throws -> ContentRig {
        let broker = if let broker { broker } else { try await MosquittoBroker() }
        let directory = try directory ?? AudioFixtures.makeTemporaryDirectory("content")
        let library = directory.appendingPathComponent("music")
        if withLibrary && !FileManager.default.fileExists(atPath: library.path) {
            _ = try await makeLibrary(in: directory)
        }
        let database = try CatalogDatabase(path: directory.appendingPathComponent("catalog.sqlite").path)
        if withLibrary { _ = await CatalogRefresher(database: database).refresh(LocalFolderProvider(roots: [library])) }
        for location in remoteCatalogs {
            let provider = try RemoteCatalogProvider(location: location, fetcher: StandardCatalogFetcher())
            let report = await CatalogRefresher(database: database).refresh(provider)
            if case let .failed(message) = report { throw RigSetupError("catalog \(location) did not load: \(message)") }
        }
        var settings = NodeConfiguration(
            broker: try BrokerURL(parsing: broker.url), nodeID: "car1", libraries: withLibrary ? [library.path] : [],
            databasePath: directory.appendingPathComponent("catalog.sqlite").path,
            audioSink: "wav:" + directory.appendingPathComponent("out.wav").path, artworkTimeout: artworkTimeout,
            content: content)
        // Automatic downloads only where a test asks for them: they would change what the others measure.
        settings.downloads.autoDownload = autoDownload
        configure(&settings)
        let configuration = settings
        var mqtt = configuration.mqttConfiguration
        mqtt.reconnectDelay = (0, 1)
        let engine = try GStreamerEngine(sink: configuration.audioSink)
        let node = Node(configuration: configuration, transport: try MQTTClient(configuration: mqtt), engine: engine,
                        catalog: database, logger: logger)
        let client = try TestMQTTClient(brokerURL: broker.url)
        try await client.connect()
        try await client.subscribeAndSettle("\(configuration.prefix)/#")
        // Threads of its own, as the daemon has its process's: not the pool the tests beside it share.
        let threads = NodeThreads(name: "medianode.test.content")
        let task = Task(executorPreference: threads) {
            await node.run()
            withExtendedLifetime(threads) {}  // the threads last as long as the node runs
        }
        // Ready once it says online (a previous run left "offline" retained) and its root is out.
        _ = try await client.first {
            $0.topic == configuration.topics.status && String(decoding: $0.payload, as: UTF8.self) == "online"
        }
        _ = try await client.first { $0.topic == configuration.topics.contentTree }
        return ContentRig(broker: broker, directory: directory, library: library, database: database, node: node,
                          task: task, client: client)
    }

    /// Publishes a command and returns the reply carrying `id`.
    func request(_ command: String, _ payload: String, id: String, timeout: Duration = .seconds(20)) async throws -> JSONValue {
        try await client.publish(topics.command(command), payload)
        return try await reply(id: id, timeout: timeout)
    }

    /// The reply carrying `id`, already received or arriving within `timeout`.
    func reply(id: String, timeout: Duration = .seconds(20)) async throws -> JSONValue {
        let message = try await client.first(timeout: timeout) { message in
            message.topic == topics.result && (try? JSONValue(parsing: message.payload))?["id"] == .string(id)
        }
        return try JSONValue(parsing: message.payload)
    }

    /// The latest retained node on a tree topic; nil when cleared or never published.
    func node(_ path: [Int]) async -> JSONValue? {
        guard let message = await client.latest(on: topics.contentTree(path)), !message.payload.isEmpty else { return nil }
        return try? JSONValue(parsing: message.payload)
    }

    /// The node at `path` once `matches` holds for it (nil: cleared or never published). The latest and the
    /// next are read in one step: checked apart, a message arriving between them was missed under load.
    func waitForNode(_ path: [Int], timeout: Duration = .seconds(20), where matches: @escaping @Sendable (JSONValue?) -> Bool)
        async throws -> JSONValue? {
        @Sendable func document(_ message: MQTTMessage?) -> JSONValue? {
            guard let message, !message.payload.isEmpty else { return nil }
            return try? JSONValue(parsing: message.payload)
        }
        return document(try await client.current(on: topics.contentTree(path), timeout: timeout) { matches(document($0)) })
    }

    /// Stops the node; the broker keeps running unless `stopBroker`.
    func stop(stopBroker: Bool = true, removeFiles: Bool = true) async {
        await node.shutdown()
        await task.value
        await client.disconnect()
        try? database.close()
        if stopBroker { broker.stop() }
        if removeFiles { try? FileManager.default.removeItem(at: directory) }
    }
}

extension JSONValue {
    /// The element at `index` of an array; nil for other values and out of range.
    subscript(index: Int) -> JSONValue? {
        guard let array = arrayValue, array.indices.contains(index) else { return nil }
        return array[index]
    }
}

struct RigSetupError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
