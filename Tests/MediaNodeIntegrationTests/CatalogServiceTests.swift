import CatalogStore
import ContentTree
import Foundation
import MQTTTransport
import MediaJSON
import MediaNode
import MediaNodeTesting
import Testing

/// The catalog service in a running node: refresh outcomes on P/events, the summary in P/info, and the
/// cache served at once with no network.
@Suite("The catalog service: refreshes, events and the offline cache")
struct CatalogServiceTests {
    static func feed(_ episodes: [Int]) -> String {
        let items = episodes.map { "<item><guid>ep\($0)</guid><title>Episode \($0)</title><enclosure url=\"https://cdn.example.net/\($0).mp3\"/></item>" }
        return "<rss version=\"2.0\"><channel><title>Service Show</title>\(items.joined())</channel></rss>"
    }

    static func json(_ message: MQTTMessage) -> JSONValue? { try? JSONValue(parsing: message.payload) }

    @Test("a refresh that adds and removes episodes publishes catalogUpdated with its diff, and failures keep the cache")
    func refreshEvents() async throws {
        let broker = try await MosquittoBroker()
        let server = try await FaultHTTPServer()
        let directory = try AudioFixtures.makeTemporaryDirectory("catalog-service")
        defer { try? FileManager.default.removeItem(at: directory) }
        let database = try CatalogDatabase(path: directory.appendingPathComponent("catalog.sqlite").path)
        let feedURL = server.url("/feed.xml").absoluteString
        await server.put("/feed.xml", body: Self.feed([1, 2]), etag: "\"1\"")

        let configuration = NodeConfiguration(
            broker: try BrokerURL(parsing: broker.url), nodeID: "cat1", catalogs: [feedURL],
            databasePath: database.path, audioSink: "fake")
        let topics = configuration.topics
        let client = try TestMQTTClient(brokerURL: broker.url)
        try await client.connect()
        try await client.subscribeAndSettle("\(configuration.prefix)/#")
        let node = Node(configuration: configuration, transport: try MQTTClient(configuration: configuration.mqttConfiguration),
                        catalog: database)
        let nodeTask = Task { await node.run() }
        let service = CatalogService(
            node: node.catalogObserver, database: database, libraries: [], catalogs: [feedURL],
            settings: CatalogRefreshSettings(
                remoteInterval: .milliseconds(400),
                policy: RefreshPolicy(requestTimeout: .seconds(2), maxAttempts: 1),
                fetchLimits: HTTPFetchLimits(connectTimeout: .seconds(1), idleTimeout: .seconds(1))))
        let serviceTask = Task { try await service.run() }

        func event(_ type: String, where matches: @escaping @Sendable (JSONValue) -> Bool = { _ in true }) async throws -> JSONValue {
            let message = try await client.first(timeout: .seconds(15)) { message in
                guard message.topic == topics.events, let event = Self.json(message) else { return false }
                return event["type"] == .string(type) && matches(event)
            }
            return try #require(Self.json(message))
        }

        let online = try await event("connectivity")
        #expect(online["online"] == true && online["location"] == .string(feedURL))
        let first = try await event("catalogUpdated")
        #expect(first["addedItems"] == 3 && first["removedItems"] == 0 && first["kind"] == "podcast")
        _ = try await client.first(timeout: .seconds(10)) { message in
            message.topic == topics.info && Self.json(message)?["catalog"]?["playables"] == 2
        }

        await server.put("/feed.xml", body: Self.feed([2, 3, 4]), etag: "\"2\"")
        let second = try await event("catalogUpdated") { $0["removedItems"] == 1 }
        #expect(second["addedItems"] == 2 && second["updatedItems"] == 0 && second["changedContainers"] == 1)
        _ = try await client.first(timeout: .seconds(10)) { message in
            message.topic == topics.info && Self.json(message)?["catalog"]?["playables"] == 3
        }

        // The server goes away mid-life: errors and an offline notice, and the cache stays as it was.
        server.stop()
        let error = try await event("error")
        #expect(error["keptPreviousContent"] == true && error["source"] != nil)
        let offline = try await event("connectivity") { $0["online"] == false }
        #expect(offline["location"] == .string(feedURL))
        #expect(try await database.summary().playables == 3)
        #expect(server.port > 0)

        serviceTask.cancel()
        _ = try? await serviceTask.value
        await node.shutdown()
        await nodeTask.value
        await client.disconnect()
        broker.stop()
    }

    @Test("at start, a source no longer configured is removed: catalogUpdated on P/events, gone from the tree and the file")
    func forgottenSource() async throws {
        let broker = try await MosquittoBroker()
        let directory = try AudioFixtures.makeTemporaryDirectory("catalog-forgotten")
        defer { try? FileManager.default.removeItem(at: directory) }
        let radioList = directory.appendingPathComponent("stations.m3u")
        try "#EXTM3U\n#EXTINF:-1,Old Station\nhttp://127.0.0.1:9/old\n#EXTINF:-1,Older Station\nhttp://127.0.0.1:9/older\n"
            .write(to: radioList, atomically: true, encoding: .utf8)
        let feed = directory.appendingPathComponent("feed.xml")
        try Self.feed([1, 2]).write(to: feed, atomically: true, encoding: .utf8)
        let path = directory.appendingPathComponent("catalog.sqlite").path

        // An earlier life of the node had both the radio list and the feed configured.
        let database = try CatalogDatabase(path: path)
        for location in [radioList.path, feed.path] {
            let provider = try RemoteCatalogProvider(location: location, fetcher: StandardCatalogFetcher())
            guard case .updated = await CatalogRefresher(database: database).refresh(provider) else {
                Issue.record("could not fill the cache from \(location)")
                return
            }
        }
        #expect(try await database.sources().count == 2)

        // Now only the feed is configured.
        let configuration = NodeConfiguration(
            broker: try BrokerURL(parsing: broker.url), nodeID: "forget1", catalogs: [feed.path],
            databasePath: path, audioSink: "fake")
        let topics = configuration.topics
        let client = try TestMQTTClient(brokerURL: broker.url)
        try await client.connect()
        try await client.subscribeAndSettle("\(configuration.prefix)/#")
        let node = Node(configuration: configuration, transport: try MQTTClient(configuration: configuration.mqttConfiguration),
                        catalog: database)
        let nodeTask = Task { await node.run() }
        let service = CatalogService(node: node.catalogObserver, database: database, libraries: [], catalogs: [feed.path])
        let serviceTask = Task { try await service.run() }

        let removed = try await client.first(timeout: .seconds(15)) { message in
            message.topic == topics.events && Self.json(message)?["type"] == "catalogUpdated"
                && Self.json(message)?["kind"] == "radio"
        }
        let event = try #require(Self.json(removed))
        #expect(event["removedItems"] == 3 && event["addedItems"] == 0 && event["location"] == .string(radioList.absoluteString))
        // The tree's root ends up with the Podcasts section and the node's own sections only, and the Radio
        // section's node is cleared.
        _ = try await client.first(timeout: .seconds(15)) { message in
            guard message.topic == "\(configuration.prefix)/content/tree", let root = Self.json(message),
                case let .array(children)? = root["children"] else { return false }
            return children.map { $0["title"] } == ["Podcasts", "Recently Played", "Favorites"]
        }
        #expect(try await database.sources().map(\.kind) == [.podcast])
        #expect(try await database.search("station", limit: 10).total == 0)
        #expect(try await database.summary().playables == 2)

        serviceTask.cancel()
        _ = try? await serviceTask.value
        await node.shutdown()
        await nodeTask.value
        await client.disconnect()
        broker.stop()
    }

    @Test("medianode catalog scan, list and search work on generated audio; a node with no network serves that cache at once")
    func commandLineAndOfflineStart() async throws {
        let directory = try AudioFixtures.makeTemporaryDirectory("catalog-cli")
        defer { try? FileManager.default.removeItem(at: directory) }
        let music = directory.appendingPathComponent("music")
        for track in AudioFixtures.album(count: 3, seconds: 0.3, album: "Offline Album", artist: "Cache Band") {
            try await AudioFixtures.writeTone(track, in: music.appendingPathComponent("Cache Band/Offline Album"))
        }
        let database = directory.appendingPathComponent("catalog.sqlite").path

        let scan = try await runCLI(["catalog", "scan", music.path, "--database", database])
        #expect(scan.status == 0, "\(scan.output)")
        #expect(scan.output.contains("+") && scan.output.contains("3 playable items"), "\(scan.output)")
        #expect(!scan.output.contains("\r"), "no progress bar when stdout is not a terminal")
        let again = try await runCLI(["catalog", "scan", music.path, "--database", database])
        #expect(again.output.contains("unchanged"), "\(again.output)")

        let root = try await runCLI(["catalog", "list", "--database", database])
        #expect(root.status == 0 && root.output.contains("\t/\t\(ContentItem.Section.library)\tLibrary"), "\(root.output)")
        let library = try await runCLI(["catalog", "list", ContentItem.Section.library, "--database", database])
        #expect(library.output.split(separator: "\n").count >= 2, "\(library.output)")
        let search = try await runCLI(["catalog", "search", "tone", "--database", database])
        let hits = search.output.split(separator: "\n")
        #expect(hits.count == 3 && hits.allSatisfy { $0.contains("\t-\t") && $0.contains("Tone ") }, "\(search.output)")
        let missing = try await runCLI(["catalog", "list", "no-such-container", "--database", database])
        #expect(missing.status != 0)

        // Start the node with nothing reachable: the first P/info already counts the cached items.
        let broker = try await MosquittoBroker()
        let watcher = try TestMQTTClient(brokerURL: broker.url)
        try await watcher.connect()
        try await watcher.subscribeAndSettle("medianode/offline1/#")
        let node = try NodeProcess(arguments: [
            "--broker", broker.url, "--node-id", "offline1", "--audio-sink", "fake", "--database", database,
            "--library", music.path, "--catalog", "http://127.0.0.1:9/feed.xml",
        ])
        let info = try await watcher.first { $0.topic == "medianode/offline1/info" }
        let catalog = try #require(Self.json(info)?["catalog"])
        #expect(catalog["playables"] == 3 && (catalog["sources"]?.numberValue ?? 0) >= 1, "\(catalog)")
        let offline = try await watcher.first(timeout: .seconds(30)) { message in
            message.topic == "medianode/offline1/events" && Self.json(message)?["type"] == "connectivity"
        }
        #expect(Self.json(offline)?["online"] == false)
        // The library rescan found nothing new, so nothing was rewritten or announced.
        let events = await watcher.messages(on: "medianode/offline1/events")
        #expect(!events.contains { Self.json($0)?["type"] == "catalogUpdated" && Self.json($0)?["kind"] == "local" })
        node.signal(SIGTERM)
        #expect(await node.waitForExit() == 0, "\(node.log)")
        await watcher.disconnect()
        broker.stop()
    }

    /// Runs the `medianode` executable with stdout piped (so not a terminal).
    func runCLI(_ arguments: [String]) async throws -> (status: Int32, output: String) {
        try await ToolRun.capture(NodeProcess.binaryPath, arguments)
    }
}
