import CatalogStore
import Foundation
import MQTTTransport
import MediaJSON
import MediaNode
import MediaNodeTesting
import Testing

/// A head unit browsing a node that has nothing yet: an empty library folder, a fresh catalog file, and a
/// podcast feed and a radio list on a server that does not answer.
@Suite("No list is ever empty, from the first publish on")
struct EmptySectionTests {
    @Test("every tree message, from before the node starts, lists at least one item; each section shows loading, then noMedia or offline")
    func sectionsAlwaysHoldAStatusItem() async throws {
        let broker = try await MosquittoBroker()
        let directory = try AudioFixtures.makeTemporaryDirectory("empty-sections")
        defer { try? FileManager.default.removeItem(at: directory) }
        let library = directory.appendingPathComponent("music")
        try FileManager.default.createDirectory(at: library, withIntermediateDirectories: true)
        // Port 9 on loopback: nothing listens, so every fetch fails at once, as with no network.
        let catalogs = ["http://127.0.0.1:9/feed.xml", "http://127.0.0.1:9/stations.m3u"]
        let database = try CatalogDatabase(path: directory.appendingPathComponent("catalog.sqlite").path)
        let configuration = NodeConfiguration(
            broker: try BrokerURL(parsing: broker.url), nodeID: "empty1", libraries: [library.path], catalogs: catalogs,
            databasePath: database.path, audioSink: "fake")
        let topics = configuration.topics
        // Subscribed before the node exists: every message it publishes on the tree is seen.
        let client = try TestMQTTClient(brokerURL: broker.url)
        try await client.connect()
        try await client.subscribeAndSettle("\(configuration.prefix)/#")
        let node = Node(configuration: configuration, transport: try MQTTClient(configuration: configuration.mqttConfiguration),
                        catalog: database)
        let nodeTask = Task { await node.run() }
        let service = CatalogService(
            node: node.catalogObserver, database: database, libraries: [library.path], catalogs: catalogs,
            settings: CatalogRefreshSettings(
                policy: RefreshPolicy(requestTimeout: .seconds(2), maxAttempts: 1),
                fetchLimits: HTTPFetchLimits(connectTimeout: .seconds(1), idleTimeout: .seconds(1))))
        let serviceTask = Task { try await service.run() }

        /// The identifiers a node lists, as last published; nil before its first publish.
        func listed(_ path: [Int]) async -> [String]? {
            guard let message = await client.latest(on: topics.contentTree(path)),
                  let node = try? JSONValue(parsing: message.payload) else { return nil }
            return node["children"]?.arrayValue?.compactMap { $0["identifier"]?.stringValue }
        }
        // Library, Podcasts and Radio, once each of their sources has been tried; Recently Played and
        // Favorites, empty on a fresh file, from the first publish on.
        let wanted: [[Int]: String] = [
            [0]: "status:noMedia", [1]: "status:offline", [2]: "status:offline", [3]: "status:noMedia", [4]: "status:noMedia",
        ]
        let deadline = ContinuousClock.now + .seconds(30)
        var shown: [[Int]: [String]] = [:]
        while ContinuousClock.now < deadline {
            for path in wanted.keys { shown[path] = await listed(path) }
            if wanted.allSatisfy({ shown[$0.key] == [$0.value] }) { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        #expect(await listed([]) == [
            "section:library", "section:podcasts", "section:radio", "section:recent", "section:favorites",
        ])
        for (path, status) in wanted {
            #expect(shown[path] == [status], "section \(path) shows \(shown[path] ?? [])")
        }

        // Every node the tree ever carried listed something; the sections began with a status item.
        let tree = topics.contentTree
        let messages = await client.received.filter { $0.topic == tree || $0.topic.hasPrefix(tree + "/") }
        #expect(!messages.isEmpty)
        for message in messages where !message.payload.isEmpty {
            let document = try JSONValue(parsing: message.payload)
            let children = document["children"]?.arrayValue ?? []
            #expect(!children.isEmpty && (document["childCount"]?.numberValue ?? 0) >= 1,
                    "\(message.topic) was published empty: \(document.jsonString)")
        }
        for path in wanted.keys {
            let first = messages.first { $0.topic == topics.contentTree(path) && !$0.payload.isEmpty }
            let identifier = try first.map { try JSONValue(parsing: $0.payload)["children"]?[0]?["identifier"]?.stringValue }
            #expect(identifier??.hasPrefix("status:") == true, "section \(path) began with \(String(describing: identifier))")
        }

        serviceTask.cancel()
        _ = try? await serviceTask.value
        await node.shutdown()
        await nodeTask.value
        await client.disconnect()
        broker.stop()
    }
}
