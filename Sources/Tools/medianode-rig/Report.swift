import Foundation
import MediaJSON
import Synchronization

/// Counts of the run, shared by every node's driving task.
final class Stats: Sendable {
    struct Snapshot {
        var sent = 0
        var answered = 0
        var lost = 0
        /// Commands sent a second time after 5 s without a reply.
        var resent = 0
        var wrongState = 0
        var replyMilliseconds: [Double] = []
        /// How late each command left against its schedule (the generator's own loop lag).
        var lagMilliseconds: [Double] = []
        /// The first few problems, to say what went wrong and not only how often: commands lost and wrong
        /// states first, then commands sent again (expected while a node moves between brokers).
        var problems: [String] { failures + resends.prefix(max(0, Stats.keptProblems - failures.count)) }
        var failures: [String] = []
        var resends: [String] = []
    }

    private let state = Mutex(Snapshot())
    static let keptProblems = 10

    func sent() { state.withLock { $0.sent += 1 } }
    func answered(milliseconds: Double) {
        state.withLock {
            $0.answered += 1
            if !milliseconds.isNaN { $0.replyMilliseconds.append(milliseconds) }
        }
    }
    func lagged(milliseconds: Double) { state.withLock { $0.lagMilliseconds.append(milliseconds) } }
    func lost(_ problem: String) { state.withLock { $0.lost += 1; Self.keep(problem, in: &$0.failures) } }
    func resent(_ problem: String) { state.withLock { $0.resent += 1; Self.keep(problem, in: &$0.resends) } }
    func wrong(_ problem: String) { state.withLock { $0.wrongState += 1; Self.keep(problem, in: &$0.failures) } }
    func snapshot() -> Snapshot { state.withLock { $0 } }
    func counts() -> (sent: Int, answered: Int, lost: Int, wrong: Int) {
        state.withLock { ($0.sent, $0.answered, $0.lost, $0.wrongState) }
    }

    private static func keep(_ problem: String, in problems: inout [String]) {
        if problems.count < keptProblems { problems.append(problem) }
    }
}

/// One line of progress: rewritten in place on a terminal, a plain line every few seconds otherwise.
final class Progress: Sendable {
    let driver: Driver
    let nodes: Int
    let stats = Stats()
    /// The nodes' `--metrics-interval` in seconds, when they publish `P/metrics`: each line then counts the stale.
    let metricsInterval: Double?
    let began = Date()
    private let isTerminal = isatty(STDOUT_FILENO) != 0
    private let last = Mutex<(time: Double, sent: Int, printed: Double)>((Date().timeIntervalSince1970, 0, 0))

    init(driver: Driver, nodes: Int, metricsInterval: Double? = nil) {
        self.driver = driver
        self.nodes = nodes
        self.metricsInterval = metricsInterval
    }

    /// `detail` replaces the online count while the nodes are being made (before any can be online).
    func tick(phase: String, remaining: Double? = nil, detail: String? = nil) {
        let now = Date().timeIntervalSince1970
        let counts = stats.counts()
        let (perSecond, due) = last.withLock { last -> (Double, Bool) in
            let elapsed = max(0.001, now - last.time)
            let perSecond = Double(counts.sent - last.sent) / elapsed
            let due = isTerminal ? now - last.printed >= 0.25 : now - last.printed >= 5
            if elapsed >= 1 { last.time = now; last.sent = counts.sent }
            if due { last.printed = now }
            return (perSecond, due)
        }
        guard due else { return }
        var line = "\(phase): " + (detail ?? "online \(driver.onlineCount)/\(nodes)")
        if phase == "driving" {
            line += String(format: ", %.0f cmd/s, sent %d, answered %d, lost %d, wrong %d", perSecond, counts.sent,
                           counts.answered, counts.lost, counts.wrong)
        }
        if let remaining { line += String(format: ", %.0f s left", remaining) }
        // Once the nodes run: while they start (a slow cluster can hold the start for its whole limit) and drive.
        if let metricsInterval, phase == "driving" || phase == "starting" {
            let health = FleetHealth(latest: driver.latestMetrics, interval: metricsInterval, now: Date(), since: began)
            line += ", stale \(health.staleNodes.count)"
                + (health.staleNodes.isEmpty ? "" : " (\(health.staleNodes.prefix(5).joined(separator: ", ")))")
        }
        if isTerminal {
            print("\r\u{1B}[K" + line, terminator: "")
        } else {
            print(line)
        }
        // Into a pipe or a log file stdout is written a block at a time: a line kept back for minutes
        // looks like a rig that hangs.
        fflush(nil)
    }

    func finish() {
        if isTerminal { print("\r\u{1B}[K", terminator: "") }
    }
}

/// What the rig prints and writes: the fields the README's "Fleet rig" section names, and a few more.
struct RigReport {
    let nodes: Int
    let online: Int
    let stats: Stats.Snapshot
    let startSeconds: Double
    let usage: ProcessUsage
    let brokers: Int
    let duration: Double
    let rate: Double
    /// Where the nodes kept their catalogs: `file` or `memory`.
    let storage: String
    /// Seconds at the start whose commands the reply and lag figures leave out.
    var warmup = 0.0
    var memory: MemoryUse?
    /// The nodes' health, when they publish `P/metrics`.
    var health: FleetHealth?

    var passed: Bool { stats.lost == 0 && stats.wrongState == 0 }

    /// The generator's lag p99 above which its latency figures say more about the rig than about the nodes.
    static let validLagMilliseconds = 10.0
    /// Whether the latency figures measure the nodes and the broker: the generator kept its schedule.
    var isValid: Bool { Self.percentile(0.99, of: stats.lagMilliseconds) <= Self.validLagMilliseconds }

    /// Nearest-rank percentile of the reply times, in milliseconds.
    func percentile(_ fraction: Double) -> Double { Self.percentile(fraction, of: stats.replyMilliseconds) }

    static func percentile(_ fraction: Double, of values: [Double]) -> Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return 0 }
        let rank = Int((fraction * Double(sorted.count)).rounded(.up)) - 1
        return sorted[min(sorted.count - 1, max(0, rank))]
    }

    func lag(_ fraction: Double) -> Double { Self.percentile(fraction, of: stats.lagMilliseconds) }

    static func rounded(_ value: Double, _ places: Double = 1000) -> Double { (value * places).rounded() / places }

    var json: JSONValue {
        .object([
            "nodes": .number(Double(nodes)), "online": .number(Double(online)),
            "sent": .number(Double(stats.sent)), "answered": .number(Double(stats.answered)),
            "lost": .number(Double(stats.lost)), "resent": .number(Double(stats.resent)), "wrongState": .number(Double(stats.wrongState)),
            "replyMs": .object([
                "p50": .number(Self.rounded(percentile(0.5))), "p90": .number(Self.rounded(percentile(0.9))),
                "p99": .number(Self.rounded(percentile(0.99))), "count": .number(Double(stats.replyMilliseconds.count)),
                "max": .number(Self.rounded(stats.replyMilliseconds.max() ?? 0)),
            ]),
            "generatorLagMs": .object([
                "p50": .number(Self.rounded(lag(0.5))), "p99": .number(Self.rounded(lag(0.99))),
                "max": .number(Self.rounded(stats.lagMilliseconds.max() ?? 0)),
            ]),
            "valid": .bool(isValid),
            "startSeconds": .number(Self.rounded(startSeconds)),
            "rssMiB": .number(Self.rounded(usage.residentMiB, 10)),
            "rssMiBPerNode": .number(Self.rounded(usage.residentMiB / Double(nodes), 100)),
            "peakRssMiB": .number(Self.rounded(usage.peakResidentMiB, 10)),
            "cpuSeconds": .number(Self.rounded(usage.cpuSeconds, 100)),
            "threads": .number(Double(usage.threads)),
            "descriptors": .number(Double(usage.descriptors)), "catalogs": .string(storage),
            "warmupSeconds": .number(warmup),
            "brokers": .number(Double(brokers)), "durationSeconds": .number(duration), "rate": .number(rate),
            "problems": .array(stats.problems.map(JSONValue.string)),
        ]).adding("metrics", health?.json).adding("heapMiB", memory.map { .object([
            "allocated": .number(Self.rounded($0.heapMiB, 10)), "sqlite": .number(Self.rounded($0.sqliteMiB, 10)),
            "catalogPages": .number(Self.rounded($0.catalogPagesMiB, 10)),
            "compiledStatements": .number(Self.rounded($0.statementsMiB, 10)), "schemas": .number(Self.rounded($0.schemasMiB, 10)),
        ]) })
    }

    var text: String {
        var lines = [
            "medianode-rig: \(nodes) nodes over \(brokers) broker(s), \(Self.rounded(duration, 10)) s at \(rate) command/s per node",
            "  online      \(online)/\(nodes) (all online after \(String(format: "%.2f", startSeconds)) s)",
            "  sent        \(stats.sent), answered \(stats.answered), lost \(stats.lost) (sent again after 5 s: \(stats.resent)), wrong state \(stats.wrongState)",
            String(format: "  reply ms    p50 %.1f  p90 %.1f  p99 %.1f  max %.1f", percentile(0.5), percentile(0.9),
                   percentile(0.99), stats.replyMilliseconds.max() ?? 0)
                + (warmup > 0 ? " (\(stats.replyMilliseconds.count) replies, after a \(Self.rounded(warmup, 10)) s warm-up)" : ""),
            String(format: "  lag ms      p50 %.1f  p99 %.1f  max %.1f (how late commands left against their schedule)",
                   lag(0.5), lag(0.99), stats.lagMilliseconds.max() ?? 0),
            String(format: "  process     %.1f MiB resident (%.2f MiB per node, peak %.1f MiB), %.2f s CPU, %d threads, %d open files",
                   usage.residentMiB, usage.residentMiB / Double(nodes), usage.peakResidentMiB, usage.cpuSeconds,
                   usage.threads, usage.descriptors),
            "  catalogs    \(storage == "memory" ? "in memory, one copy per node" : "a file per node")",
        ]
        if let memory {
            let perNode = { (mebibytes: Double) in String(format: "%.0f", mebibytes * 1024 / Double(nodes)) }
            lines.append("  heap KiB    per node: \(perNode(memory.heapMiB)) allocated, of it SQLite \(perNode(memory.sqliteMiB))"
                + " (catalog pages \(perNode(memory.catalogPagesMiB)), compiled statements \(perNode(memory.statementsMiB)),"
                + " schemas \(perNode(memory.schemasMiB)))")
        }
        if let health {
            let commands = health.summary["commands"]?.objectValue ?? [:]
            let counts = commands.keys.sorted().map { "\($0) \(Int(commands[$0]?.numberValue ?? 0))" }.joined(separator: ", ")
            lines.append("  metrics     \(health.reporting) nodes reporting, \(health.staleNodes.count) stale"
                + (health.staleNodes.isEmpty ? "" : " (\(health.staleNodes.prefix(5).joined(separator: ", ")))"))
            lines.append("  fleet       commands: \(counts)")
        }
        for problem in stats.problems { lines.append("  problem: \(problem)") }
        if !isValid {
            lines.append(String(format: "  INVALID latency figures: the generator's lag p99 %.1f ms is over %.0f ms (the rig, not the nodes, set them)",
                                lag(0.99), Self.validLagMilliseconds))
        }
        lines.append(passed ? "PASS" : "FAIL")
        return lines.joined(separator: "\n")
    }
}

extension JSONValue {
    /// This object with one more member, when there is a value for it.
    func adding(_ key: String, _ value: JSONValue?) -> JSONValue {
        guard case var .object(members) = self, let value else { return self }
        members[key] = value
        return .object(members)
    }
}
