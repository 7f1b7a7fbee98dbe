import ArgumentParser
import CatalogStore
import ContentTree
import Foundation
import GRDB
import Logging
import MQTTTransport
import MediaNode
import MediaNodeFixtures
import Synchronization

/// The content tree on a 100k-item catalog: browse round trips beside the floors (bare clients through
/// the same broker; the same SQLite query by hand), for pages browsed again and for nodes browsed the
/// first time, time from process start to the retained state, and what a one-item refresh publishes.
struct ContentBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "content", abstract: "Content tree: browse latency, start-up to retained tree, refresh cost.")

    @Option(help: "Playable items in the synthetic catalog.") var items = 100_000
    @Option(help: "Requests per measured browse run.") var requests = 2000
    @Option(help: "Process starts measured.") var starts = 5
    @Option(help: "Keep the catalog in this file and reuse it on later runs (default: a temporary file).")
    var database: String?
    @Option(help: "Measure one part only: start (the process starts) or browse (browse round trips and the refresh).")
    var only: Part?

    enum Part: String, ExpressibleByArgument {
        case start, browse
    }

    func run() async throws {
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = .warning
            return handler
        }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("mn-bench-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = database ?? directory.appendingPathComponent("catalog.sqlite").path
        let source = CatalogSource(kind: .local, location: "/bench/music")
        var snapshot = SyntheticCatalog.snapshot(source: source, items: items)
        do {
            // A kept file may hold the rename of an earlier run: replacing puts the generated content back.
            let database = try CatalogDatabase(path: path)
            try await database.register(source)
            try await database.replaceContent(of: source.identifier, with: snapshot)
            try database.close()
            // On disk before the starts are timed, as after a reboot: otherwise the first starts compete
            // with the kernel writing back the file just generated.
            let file = try FileHandle(forUpdating: URL(fileURLWithPath: path))
            try file.synchronize()
            try file.close()
        }
        print("catalog: \(items) playables, \(snapshot.count) items, in \(path)")

        let broker = try await MosquittoBroker()
        defer { broker.stop() }
        let url = try BrokerURL(parsing: broker.url)
        if only != .browse { try await measureStart(broker: broker, databasePath: path) }
        guard only != .start else { return }

        let database = try CatalogDatabase(path: path)
        let configuration = NodeConfiguration(broker: url, nodeID: "bench", databasePath: path, audioSink: "fake")
        let transport = CountingTransport(try MQTTClient(configuration: configuration.mqttConfiguration))
        let node = Node(configuration: configuration, transport: transport, catalog: database)
        let nodeTask = Task { await node.run() }
        let requester = try Requester(url: url, replyTopics: ["bench/reply", configuration.topics.result])
        try await Task.sleep(for: .seconds(1))

        let albumsID = "\(source.identifier)/albums"
        let cases: [(String, String, (String, Int, Int))] = [
            ("first page: [0,1] Albums, offset 0, 100 of 1000", #"{"indexPath":[0,1],"limit":100}"#, (albumsID, 0, 100)),
            ("deep page: [0,1] Albums, offset 900, 100", #"{"indexPath":[0,1],"offset":900,"limit":100}"#, (albumsID, 900, 100)),
            ("deep node: [0,1,999] an album, 100 tracks", #"{"indexPath":[0,1,999],"limit":100}"#, ("\(source.identifier)/album/999", 0, 100)),
        ]
        let reader = try DatabasePool(path: path)
        for (title, payload, query) in cases {
            let body = Array(payload.utf8)
            let topic = configuration.topics.command("browse")
            let replySize = await Self.replyBytes(requester: requester, topic: topic, body: body)
            let responder = try EchoResponder(url: url, replySize: replySize)
            try await Task.sleep(for: .milliseconds(300))
            let count = requests
            let (nodeSamples, floorSamples) = await onDedicatedThread {
                requester.measureInterleaved(
                    subject: topic, floor: "bench/request", payload: body, count: count, warmup: 200, block: 250)
            }
            report("Browse round trip, \(title) (reply \(replySize) bytes):",
                   subject: ("through medianode (browse)", nodeSamples),
                   floor: ("floor: bare request/\(replySize)-byte reply", floorSamples))
            let sql = try sqliteSamples(reader, parent: query.0, offset: query.1, limit: query.2, count: count)
            print(String(format: "  %-46@ n=%6d  p50 %8.1f µs  p90 %8.1f µs  p99 %8.1f µs",
                         "floor: the same SQLite page query by hand" as NSString, sql.values.count, sql.median,
                         sql.percentile(90), sql.percentile(99)))
            await responder.client.shutdown()
        }

        // First browses: every request names an album not browsed before, so the node reads it from the
        // catalog, publishes it and answers; the floors answer the same sizes and read the same pages.
        do {
            let count = min(requests, 500)
            let topic = configuration.topics.command("browse")
            let payloads = (0..<count).map { Array(#"{"indexPath":[0,1,\#(100 + $0)],"limit":100}"#.utf8) }
            let replySize = await Self.replyBytes(requester: requester, topic: topic, body: Array(#"{"indexPath":[0,1,99]}"#.utf8))
            let responder = try EchoResponder(url: url, replySize: replySize)
            try await Task.sleep(for: .milliseconds(300))
            let (nodeSamples, floorSamples) = await onDedicatedThread {
                var subject = LatencySamples(), floor = LatencySamples()
                for payload in payloads {
                    subject.values += requester.measure(topic: topic, payload: payload, count: 1).values
                    floor.values += requester.measure(topic: "bench/request", payload: payload, count: 1).values
                }
                return (subject, floor)
            }
            report("Browse round trip, first browse of a node: [0,1,k] a different album each time (reply \(replySize) bytes):",
                   subject: ("through medianode (browse, published)", nodeSamples),
                   floor: ("floor: bare request/\(replySize)-byte reply", floorSamples))
            var sql = LatencySamples()
            for album in 100..<(100 + count) {
                sql.values += try sqliteSamples(reader, parent: "\(source.identifier)/album/\(album)", offset: 0, limit: 100,
                                                count: 1).values
            }
            print(String(format: "  %-46@ n=%6d  p50 %8.1f µs  p90 %8.1f µs  p99 %8.1f µs",
                         "floor: the same SQLite page query by hand" as NSString, sql.values.count, sql.median,
                         sql.percentile(90), sql.percentile(99)))
            await responder.client.shutdown()
        }

        // A refresh that changes one track of a browsed album.
        try await Task.sleep(for: .milliseconds(500))
        transport.reset()
        let changed = "\(source.identifier)/track/99950"
        if var track = snapshot.items[changed] {
            track.title = "Renamed track"
            snapshot.update(track)
        }
        let diff = try await database.replaceContent(of: source.identifier, with: snapshot)
        try await Task.sleep(for: .seconds(1))
        let (messages, bytes, topics) = transport.totals
        print("Refresh that renames one track (of the browsed album [0,1,999]): diff changed \(diff.changedContainers.count) containers")
        print("  published: \(messages) messages, \(bytes) bytes: \(topics.sorted().joined(separator: ", "))")

        await node.shutdown()
        await nodeTask.value
        await requester.client.shutdown()
        try? database.close()
    }

    /// One browse to learn how large the node's reply is, so the floor replies with as many bytes.
    static func replyBytes(requester: Requester, topic: String, body: [UInt8]) async -> Int {
        let box = Mutex(0)
        let probe = try? MQTTClient(configuration: MQTTConfiguration(
            broker: requester.client.configuration.broker, clientID: "bench-probe")) { message in
            box.withLock { $0 = max($0, message.payload.count) }
        }
        probe?.start()
        // The command's reply topic: the prefix before its command leaf, then the result leaf.
        let commandLeaf = "/\(TopicLeaf.command.rawValue)/"
        let prefix = topic.range(of: commandLeaf).map { String(topic[..<$0.lowerBound]) } ?? topic
        try? probe?.subscribe(TopicLayout(prefix: prefix).result, qos: 1)
        try? await Task.sleep(for: .milliseconds(300))
        _ = await onDedicatedThread { requester.measure(topic: topic, payload: body, count: 1) }
        try? await Task.sleep(for: .milliseconds(300))
        await probe?.shutdown()
        return box.withLock { $0 }
    }

    func sqliteSamples(_ pool: DatabasePool, parent: String, offset: Int, limit: Int, count: Int) throws -> LatencySamples {
        var samples = LatencySamples()
        let clock = ContinuousClock()
        for _ in 0..<count {
            let start = clock.now
            _ = try pool.read { db in
                try Row.fetchAll(db, sql: """
                    SELECT item.*, progress.elapsed, progress.duration FROM child
                    JOIN item ON item.identifier = child.identifier
                    LEFT JOIN playback_position AS progress ON progress.identifier = item.identifier
                    WHERE child.parent = ? AND child.position >= ? ORDER BY child.position LIMIT ?
                    """, arguments: [parent, offset, limit])
            }
            samples.append(clock.now - start)
        }
        return samples
    }
}

/// Replies to every request with `replySize` bytes from inside libmosquitto's callback: the floor.
final class EchoResponder: @unchecked Sendable {
    let client: MQTTClient

    init(url: BrokerURL, replySize: Int, requestTopic: String = "bench/request", replyTopic: String = "bench/reply") throws {
        let box = ClientBox()
        let reply = [UInt8](repeating: UInt8(ascii: "x"), count: max(1, replySize))
        client = try MQTTClient(configuration: MQTTConfiguration(broker: url, clientID: "bench-echo-\(replySize)")) { _ in
            try? box.client?.publish(topic: replyTopic, payload: reply, qos: 1)
        }
        box.client = client
        client.start()
        try client.subscribe(requestTopic, qos: 1)
    }
}

/// Counts what the node publishes, for the refresh measurement.
final class CountingTransport: MessageTransport, Sendable {
    let base: MQTTClient
    private let counts = Mutex((messages: 0, bytes: 0, topics: Set<String>()))

    init(_ base: MQTTClient) { self.base = base }

    var totals: (Int, Int, Set<String>) { counts.withLock { ($0.messages, $0.bytes, $0.topics) } }
    func reset() { counts.withLock { $0 = (0, 0, []) } }

    var events: AsyncStream<MQTTEvent> { base.events }
    var protocolVersion: MQTTProtocolVersion { base.protocolVersion }
    func start() { base.start() }
    func route(_ router: @escaping @Sendable (MQTTMessage) -> Bool) { base.route(router) }
    func publish(topic: String, payload: [UInt8], qos: Int, retain: Bool, properties: MQTTProperties) throws(MQTTError) {
        counts.withLock {
            $0.messages += 1
            $0.bytes += payload.count + topic.utf8.count
            $0.topics.insert(topic)
        }
        try base.publish(topic: topic, payload: payload, qos: qos, retain: retain, properties: properties)
    }
    func publishAndWait(topic: String, payload: [UInt8], retain: Bool, properties: MQTTProperties) async throws {
        try await base.publishAndWait(topic: topic, payload: payload, retain: retain, properties: properties)
    }
    func subscribe(_ filter: String, qos: Int) throws(MQTTError) { try base.subscribe(filter, qos: qos) }
    func flush() { base.flush() }
    func shutdown() async { await base.shutdown() }
}
