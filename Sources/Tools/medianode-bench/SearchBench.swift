import ArgumentParser
import CatalogStore
import Foundation
import GRDB
import Logging
import MQTTTransport
import MediaNode
import MediaNodeFixtures

/// `search` on a 100k-item catalog: round trips through the node beside its two floors in the same run,
/// the store's FTS query by hand on a bare SQLite connection and a bare MQTT request/reply of the same
/// size, and the ratio to the floors added up.
struct SearchBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "search", abstract: "search round trip beside the same FTS query by hand and a bare MQTT round trip.")

    @Option(help: "Playable items in the synthetic catalog.") var items = 100_000
    @Option(help: "Requests per measured run.") var requests = 2000
    @Option(help: "Unmeasured requests first.") var warmup = 200

    func run() async throws {
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = .warning
            return handler
        }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("mn-search-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("catalog.sqlite").path
        let source = CatalogSource(kind: .local, location: "/bench/music")
        let database = try CatalogDatabase(path: path)
        try await database.register(source)
        let snapshot = SyntheticCatalog.snapshot(source: source, items: items)
        let importStart = ContinuousClock.now
        try await database.replaceContent(of: source.identifier, with: snapshot)
        let imported = ContinuousClock.now - importStart
        try await database.pool.writeWithoutTransaction { db in _ = try db.checkpoint(.truncate) }
        let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int).flatMap { $0 } ?? 0
        print("catalog: \(items) playables, \(snapshot.count) items, imported with its search index in \(imported); file \(size / 1_000_000) MB")

        let broker = try await MosquittoBroker()
        defer { broker.stop() }
        let url = try BrokerURL(parsing: broker.url)
        let configuration = NodeConfiguration(broker: url, nodeID: "bench", databasePath: path, audioSink: "fake")
        let node = Node(configuration: configuration, transport: try MQTTClient(configuration: configuration.mqttConfiguration),
                        catalog: database)
        let nodeTask = Task { await node.run() }
        let requester = try Requester(url: url, replyTopics: ["bench/reply", configuration.topics.result])
        try await Task.sleep(for: .seconds(1))

        let queries = [
            ("a title prefix, 11 matches", "track 4242"),
            ("an album name, 1,111 matches ranked", "album 99"),
        ]
        for (title, text) in queries {
            let found = try await database.search(text, limit: 20)
            let body = Array(#"{"query":"\#(text)","limit":20}"#.utf8)
            let topic = configuration.topics.command("search")
            let replySize = await ContentBench.replyBytes(requester: requester, topic: topic, body: body)
            let responder = try EchoResponder(url: url, replySize: replySize)
            try await Task.sleep(for: .milliseconds(300))
            let (count, warmup) = (requests, warmup)
            let (nodeSamples, mqttSamples) = await onDedicatedThread {
                requester.measureInterleaved(
                    subject: topic, floor: "bench/request", payload: body, count: count, warmup: warmup, block: 250)
            }
            await responder.client.shutdown()
            let sqlSamples = try handQuerySamples(path: path, text: text, count: count, warmup: warmup)

            print("search \"\(text)\": \(title); \(found.items.count) items of \(found.total), reply \(replySize) bytes")
            for (name, samples) in [("through medianode (search)", nodeSamples),
                                    ("floor: the same FTS query by hand, bare SQLite", sqlSamples),
                                    ("floor: bare MQTT request/\(replySize)-byte reply", mqttSamples)] {
                print(String(format: "  %-48@ n=%6d  p50 %8.1f µs  p90 %8.1f µs  p99 %8.1f µs", name as NSString,
                             samples.values.count, samples.median, samples.percentile(90), samples.percentile(99)))
            }
            let floorP50 = sqlSamples.median + mqttSamples.median
            let floorP99 = sqlSamples.percentile(99) + mqttSamples.percentile(99)
            print(String(format: "  ratio to the floors added up: p50 %.2fx (%.1f µs), p99 %.2fx (%.1f µs); target p99 < 2000 µs, within 1.3x",
                         nodeSamples.median / floorP50, floorP50, nodeSamples.percentile(99) / floorP99, floorP99))
        }

        // For context: the content lane's own cost, with a one-row read (contentItem) instead of a search.
        do {
            let body = Array(#"{"identifier":"\#(source.identifier)/track/4242"}"#.utf8)
            let topic = configuration.topics.command("contentItem")
            let replySize = await ContentBench.replyBytes(requester: requester, topic: topic, body: body)
            let responder = try EchoResponder(url: url, replySize: replySize)
            try await Task.sleep(for: .milliseconds(300))
            let (count, warmup) = (requests, warmup)
            let (nodeSamples, mqttSamples) = await onDedicatedThread {
                requester.measureInterleaved(
                    subject: topic, floor: "bench/request", payload: body, count: count, warmup: warmup, block: 250)
            }
            await responder.client.shutdown()
            report("For context, contentItem on the same lane (reply \(replySize) bytes):",
                   subject: ("through medianode (contentItem)", nodeSamples),
                   floor: ("floor: bare MQTT request/\(replySize)-byte reply", mqttSamples))
        }

        await node.shutdown()
        await nodeTask.value
        await requester.client.shutdown()
        try? database.close()
    }

    /// The store's search statement, prepared once on a bare read-only connection, bound and read in full.
    func handQuerySamples(path: String, text: String, count: Int, warmup: Int) throws -> LatencySamples {
        guard let query = SearchQuery(text) else { return LatencySamples() }
        let hand = try HandWrittenPageQuery(path: path, sql: SearchQuery.sql)
        defer { hand.close() }
        let arguments: [HandWrittenPageQuery.Argument] = [.text(query.anyColumn), .text(query.key), .text(query.title), .integer(20)]
        for _ in 0..<warmup { try hand.run(arguments) }
        var samples = LatencySamples()
        let clock = ContinuousClock()
        for _ in 0..<count {
            let start = clock.now
            try hand.run(arguments)
            samples.append(clock.now - start)
        }
        return samples
    }
}
