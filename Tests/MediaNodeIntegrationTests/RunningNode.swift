import Foundation
import GStreamerAudio
import MQTTTransport
import MediaNode
import MediaNodeTesting
import RemoteCommands
import MediaJSON

/// A node running in this process against a real broker, with a test client beside it.
struct RunningNode {
    let broker: MosquittoBroker
    let node: Node
    let task: Task<Void, Never>
    let client: TestMQTTClient
    /// Where the node's WAV sink renders, when it has one.
    var wavURL: URL?
    var topics: TopicLayout { node.configuration.topics }

    static func start(
        broker: MosquittoBroker? = nil, nodeID: String = "car1", nodeVersion: MQTTProtocolVersion = .v5,
        clientVersion: MQTTProtocolVersion = .v5, maximumPayload: Int = CommandRequest.defaultMaximumPayload
    ) async throws -> RunningNode {
        try await start(
            broker: broker, nodeID: nodeID, nodeVersion: nodeVersion, clientVersion: clientVersion,
            maximumPayload: maximumPayload, libraries: [], sink: nil)
    }

    /// A node playing the files of `library` (in path order, prepared paused) through a real GStreamer
    /// engine that renders into the WAV file at `wav`.
    static func start(library: URL, wav: URL) async throws -> RunningNode {
        var running = try await start(libraries: [library.path], sink: "wav:\(wav.path)")
        running.wavURL = wav
        return running
    }

    /// A node with a real GStreamer engine on `sink` (any `--audio-sink` text), or without an engine. With
    /// `libraries`, they are scanned into a real catalog file and their files queued, paused, in path order.
    static func start(
        broker: MosquittoBroker? = nil, nodeID: String = "car1", nodeVersion: MQTTProtocolVersion = .v5,
        clientVersion: MQTTProtocolVersion = .v5, maximumPayload: Int = CommandRequest.defaultMaximumPayload,
        libraries: [String], sink: String?, catalogFile: URL? = nil, afterScan: () throws -> Void = {},
        configure: (inout NodeConfiguration) -> Void = { _ in }
    ) async throws -> RunningNode {
        let broker = if let broker { broker } else { try await MosquittoBroker() }
        let catalog: LibraryCatalog? = libraries.isEmpty ? nil : try await LibraryCatalog.scan(
            libraries, into: catalogFile?.deletingLastPathComponent() ?? broker.directory,
            named: catalogFile?.lastPathComponent)
        try afterScan()
        var configured = NodeConfiguration(
            broker: try BrokerURL(parsing: broker.url), nodeID: nodeID, protocolVersion: nodeVersion,
            libraries: libraries, databasePath: catalog?.path ?? ":memory:", audioSink: sink ?? "fake",
            maximumPayload: maximumPayload)
        configure(&configured)
        let configuration = configured
        var mqtt = configuration.mqttConfiguration
        mqtt.reconnectDelay = (0, 1)
        var engine: GStreamerEngine?
        if let sink { engine = try GStreamerEngine(sink: sink) }
        // Pictures are cached in the catalog file, as the daemon's node keeps them.
        let node = Node(configuration: configuration, transport: try MQTTClient(configuration: mqtt), engine: engine,
                        catalog: catalog?.database, artworkStore: catalog?.database, volumeMemory: catalog?.database,
                        clipPlayer: engine.map { GStreamerClipPlayer(sharingOutputOf: $0) })
        // Threads of its own, as the daemon has its process's: not the pool the tests beside it share.
        let threads = NodeThreads(name: "medianode.test.\(nodeID)")
        let task = Task(executorPreference: threads) {
            await node.run()
            withExtendedLifetime(threads) {}  // the threads last as long as the node runs
        }
        let client = try TestMQTTClient(brokerURL: broker.url, version: clientVersion)
        try await client.connect()
        try await client.subscribeAndSettle("\(configuration.prefix)/#")
        // Ready once it says online (an earlier run may have left "offline" retained) and its capabilities are out.
        _ = try await client.first {
            $0.topic == configuration.topics.status && String(decoding: $0.payload, as: UTF8.self) == "online"
        }
        _ = try await client.first { $0.topic == configuration.topics.commands }
        let running = RunningNode(broker: broker, node: node, task: task, client: client)
        if let catalog, !catalog.identifiers.isEmpty {
            _ = try await client.first { $0.topic == configuration.topics.contentTree }
            let reply = try await running.request(
                "prepareQueue", catalog.prepareQueuePayload.dropLast() + #","id":"rig-queue"}"#, id: "rig-queue")
            guard reply["status"] == "success" else { throw WaitTimeout("prepareQueue: \(reply.jsonString)") }
        }
        return running
    }

    /// Publishes a command and returns the reply on `P/result` carrying `id`.
    func request(_ command: String, _ payload: String, id: String) async throws -> JSONValue {
        try await client.publish(topics.command(command), payload)
        return try await reply(id: id)
    }

    func reply(id: String) async throws -> JSONValue {
        let message = try await client.first { message in
            message.topic == topics.result && (try? JSONValue(parsing: message.payload))?["id"] == .string(id)
        }
        return try JSONValue(parsing: message.payload)
    }

    func replies(id: String) async -> [JSONValue] {
        await client.messages(on: topics.result).compactMap { try? JSONValue(parsing: $0.payload) }
            .filter { $0["id"] == .string(id) }
    }

    func stop() async {
        await node.shutdown()
        await task.value
        await client.disconnect()
        broker.stop()
    }
}
