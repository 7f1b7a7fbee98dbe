import Foundation
import MediaJSON
import MediaNodeTesting
import Testing

/// `P/metrics` from the real daemon through a real mosquitto, and its Prometheus text scraped by a real
/// Prometheus (Debian's `prometheus`, installed by deploy/install-deps.sh).
@Suite("The daemon's health metrics reach the broker and a real Prometheus")
final class MetricsIntegrationTests {
    let scratch: URL

    init() throws {
        scratch = try AudioFixtures.makeTemporaryDirectory("metrics")
    }

    deinit {
        try? FileManager.default.removeItem(at: scratch)
    }

    /// A daemon on `broker` with `--metrics-interval 1` and the extra arguments, and a client that sees it online.
    func startNode(_ id: String, on broker: MosquittoBroker, _ extra: [String] = []) async throws
        -> (node: NodeProcess, client: TestMQTTClient)
    {
        let client = try TestMQTTClient(brokerURL: broker.url)
        try await client.connect()
        try await client.subscribeAndSettle("medianode/\(id)/#")
        let node = try NodeProcess(arguments: [
            "--broker", broker.url, "--node-id", id, "--audio-sink", "fake", "--metrics-interval", "1",
            "--database", scratch.appendingPathComponent("\(id).sqlite").path,
        ] + extra)
        _ = try await client.first(timeout: .seconds(30)) {
            $0.topic == "medianode/\(id)/status" && $0.payload == Array("online".utf8)
        }
        return (node, client)
    }

    /// Sends `pause` `count` times to a node with nothing loaded: each is `noActionableNowPlayingItem`.
    func pause(_ id: String, count: Int, through client: TestMQTTClient) async throws {
        for index in 0..<count {
            try await client.publish("medianode/\(id)/cmd/pause", #"{"id":"p\#(index)"}"#)
            _ = try await client.first {
                $0.topic == "medianode/\(id)/result" && (try? JSONValue(parsing: $0.payload))?["id"] == .string("p\(index)")
            }
        }
    }

    @Test("P/metrics is retained, comes within a second of online and every interval, and counts the replies")
    func publishedByTheDaemon() async throws {
        let broker = try await MosquittoBroker()
        let (node, client) = try await startNode("metrics1", on: broker)
        let topic = "medianode/metrics1/metrics"
        let online = try await client.first { $0.topic == "medianode/metrics1/status" && $0.payload == Array("online".utf8) }
        let first = try await client.first(timeout: .seconds(5)) { $0.topic == topic }
        #expect(first.receivedAt - online.receivedAt < .seconds(1), "\(first.receivedAt - online.receivedAt)")
        try await pause("metrics1", count: 3, through: client)
        let counted = try await client.first(timeout: .seconds(10)) {
            $0.topic == topic && (try? JSONValue(parsing: $0.payload))?["commands"]?["noActionableNowPlayingItem"] == 3
        }
        let document = try JSONValue(parsing: counted.payload)
        #expect(document["broker"]?["connects"] == 1)
        #expect((document["rssKiB"]?.numberValue ?? 0) > 1000)
        #expect(document["intervalSeconds"] == 1)
        let withReplies = try await client.first(timeout: .seconds(5)) {
            $0.topic == topic && ((try? JSONValue(parsing: $0.payload))?["replyMs"]?["p50"]?.numberValue ?? 0) > 0
        }
        #expect(withReplies.retain == false)  // live; a late subscriber gets the retained copy
        let late = try TestMQTTClient(brokerURL: broker.url)
        try await late.connect()
        try await late.subscribeAndSettle(topic)
        #expect(await late.latest(on: topic)?.retain == true)
        await late.disconnect()
        node.signal(SIGTERM)
        _ = await node.waitForExit()
        await client.disconnect()
        broker.stop()
    }

    @Test("a broker that dies moves the node to the next one: P/metrics follows online there at once, counting two connects and one fail-over")
    func failoverCounted() async throws {
        let first = try await MosquittoBroker()
        let second = try await MosquittoBroker()
        defer { second.stop() }
        let client = try TestMQTTClient(brokerURL: second.url)
        try await client.connect()
        try await client.subscribeAndSettle("medianode/metrics3/metrics")
        let node = try NodeProcess(arguments: [
            "--broker", first.url, "--broker", second.url, "--failback-interval", "600", "--node-id", "metrics3",
            "--audio-sink", "fake", "--metrics-interval", "60",
            "--database", scratch.appendingPathComponent("metrics3.sqlite").path,
        ])
        #expect(await node.waitForLog("connected to \(first.url)"), "\(node.log)")
        await first.kill()
        // At once after `online` on the second broker, not a minute later at the next interval.
        let moved = try await client.first(timeout: .seconds(15)) {
            guard $0.topic == "medianode/metrics3/metrics", let document = try? JSONValue(parsing: $0.payload) else { return false }
            return document["broker"]?["connects"] == 2
        }
        #expect(try JSONValue(parsing: moved.payload)["broker"]?["failovers"] == 1, "\(String(decoding: moved.payload, as: UTF8.self))")
        node.signal(SIGTERM)
        _ = await node.waitForExit()
        await client.disconnect()
    }

    @Test("a real Prometheus scrapes --metrics-listen and its query API shows the command counter P/metrics gives")
    func scrapedByPrometheus() async throws {
        let prometheus = "/usr/bin/prometheus"
        try #require(FileManager.default.isExecutableFile(atPath: prometheus),
                     "Debian's prometheus is not installed (deploy/install-deps.sh installs it)")
        let broker = try await MosquittoBroker()
        let nodePort = try MosquittoBroker.freePort()
        let (node, client) = try await startNode("metrics2", on: broker, ["--metrics-listen", "127.0.0.1:\(nodePort)"])
        try await pause("metrics2", count: 4, through: client)
        let topic = "medianode/metrics2/metrics"
        let published = try await client.first(timeout: .seconds(10)) {
            $0.topic == topic && (try? JSONValue(parsing: $0.payload))?["commands"]?["noActionableNowPlayingItem"] == 4
        }
        let expected = try #require(try JSONValue(parsing: published.payload)["commands"]?["noActionableNowPlayingItem"]?.numberValue)

        // Prometheus's own configuration, written here: the node's endpoint scraped every second.
        let webPort = try MosquittoBroker.freePort()
        let configuration = scratch.appendingPathComponent("prometheus.yml")
        try """
            global:
              scrape_interval: 1s
              evaluation_interval: 1s
            scrape_configs:
              - job_name: medianode
                static_configs:
                  - targets: ['127.0.0.1:\(nodePort)']
                    labels:
                      node: metrics2
            """.write(to: configuration, atomically: true, encoding: .utf8)
        let server = Process()
        server.executableURL = URL(fileURLWithPath: prometheus)
        server.arguments = [
            "--config.file=\(configuration.path)", "--storage.tsdb.path=\(scratch.appendingPathComponent("tsdb").path)",
            "--web.listen-address=127.0.0.1:\(webPort)",
        ]
        let log = scratch.appendingPathComponent("prometheus.log")
        FileManager.default.createFile(atPath: log.path, contents: nil)
        let logHandle = try FileHandle(forWritingTo: log)
        server.standardOutput = logHandle
        server.standardError = logHandle
        try server.run()
        // Prometheus is told to stop and left to end by itself: a defer cannot await its exit.
        defer { server.terminate() }

        let query = #"medianode_commands_total{status="noActionableNowPlayingItem",node="metrics2"}"#
        let url = "http://127.0.0.1:\(webPort)/api/v1/query?query="
            + (query.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? query)
        var scraped: Double?
        var lastAnswer = ""
        let deadline = ContinuousClock.now + .seconds(60)
        while ContinuousClock.now < deadline, scraped != expected {
            try await Task.sleep(for: .milliseconds(500))
            let answer = try await ToolRun.capture("/usr/bin/curl", ["-s", "--max-time", "2", url])
            lastAnswer = answer.output
            guard answer.status == 0, let document = try? JSONValue(parsing: Array(answer.output.utf8)),
                  let value = document["data"]?["result"]?.arrayValue?.first?["value"]?.arrayValue?.last?.stringValue
            else { continue }
            scraped = Double(value)
        }
        let prometheusLog = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        #expect(scraped == expected, "Prometheus answered \(lastAnswer)\n\(prometheusLog.suffix(2000))")
        // The scrape is what the node's endpoint serves: the same counter, the status as a label.
        let text = try await ToolRun.capture("/usr/bin/curl", ["-s", "http://127.0.0.1:\(nodePort)/metrics"]).output
        #expect(text.contains(#"medianode_commands_total{status="noActionableNowPlayingItem"} 4"#), "\(text)")
        node.signal(SIGTERM)
        _ = await node.waitForExit()
        await client.disconnect()
        broker.stop()
    }
}
