import Foundation
import MediaNode
import MediaNodeFixtures

// MARK: - Process start to the retained state

extension ContentBench {
    /// Starts the daemon on the cached catalog and times status, commands and the tree root, each start
    /// followed by one of the floor (`start-floor`): a bare process publishing the same three topics.
    func measureStart(broker: MosquittoBroker, databasePath: String) async throws {
        let bench = URL(fileURLWithPath: CommandLine.arguments[0])
        let binary = bench.deletingLastPathComponent().appendingPathComponent("medianode").path
        var totals = LatencySamples(), floorTotals = LatencySamples()
        var lines: [String] = []
        // Start 0 warms up what the first start after generating the catalog pays for alone (the bench's
        // own clean-up, caches); it is shown but not counted.
        for run in 0...starts {
            let nodeID = "start\(run)"
            let (total, marks) = try await timeStart(
                broker: broker, executable: binary, prefix: "medianode/\(nodeID)",
                arguments: ["--broker", broker.url, "--node-id", nodeID, "--database", databasePath,
                            "--audio-sink", "fake", "--log-level", "warning"])
            let (floor, _) = try await timeStart(
                broker: broker, executable: bench.path, prefix: "floor/\(run)",
                arguments: ["start-floor", "--broker", broker.url, "--prefix", "floor/\(run)", "--database", databasePath])
            if run > 0 {
                totals.append(total)
                floorTotals.append(floor)
            }
            lines.append((run == 0 ? "  warm-up (not counted): " : "  run \(run): ") + marks.joined(separator: ", ")
                         + String(format: "; floor %.1f ms", Self.milliseconds(floor)))
        }
        print("Process start to retained status + commands + tree root, \(items) items cached (\(starts) starts):")
        for line in lines { print(line) }
        print(String(format: "  all three present: p50 %.1f ms, max %.1f ms", totals.median / 1000,
                     (totals.values.max() ?? .nan) / 1000))
        print(String(format: "  floor: a bare process publishing the three (root page by hand): p50 %.1f ms, max %.1f ms",
                     floorTotals.median / 1000, (floorTotals.values.max() ?? .nan) / 1000))
        print(String(format: "  ratio (p50 node / p50 floor): %.2fx; difference %.1f ms", totals.median / floorTotals.median,
                     (totals.median - floorTotals.median) / 1000))
    }

    /// Runs `executable` and returns the time from its start until `prefix`'s status, commands and tree
    /// root have all reached a subscriber, with the time of each.
    func timeStart(broker: MosquittoBroker, executable: String, prefix: String, arguments: [String]) async throws
        -> (Duration, [String]) {
        let watcher = try TestMQTTClient(brokerURL: broker.url)
        try await watcher.connect()
        try await watcher.subscribeAndSettle("\(prefix)/#")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let clock = ContinuousClock()
        let start = clock.now
        try process.run()
        var marks: [String] = []
        let layout = TopicLayout(prefix: prefix)
        for (name, topic) in [("status", layout.status), ("commands", layout.commands), ("tree root", layout.contentTree)] {
            _ = try await watcher.first(timeout: .seconds(30)) { $0.topic == topic }
            marks.append(String(format: "%@ %.1f ms", name, Self.milliseconds(clock.now - start)))
        }
        let total = clock.now - start
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
        await watcher.disconnect()
        return (total, marks)
    }

    static func milliseconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
    }
}
