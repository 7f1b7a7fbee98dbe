import Foundation
import MediaJSON

/// What the nodes' `P/metrics` say together: which nodes are stale and the fleet's sums.
///
/// A node is stale when its last `P/metrics` timestamp is older than three intervals (topics.md
/// "Health"): a clustered broker may keep `online` retained for a node that is gone, so the timestamp,
/// not the status, tells. A node never heard from counts from the rig's start.
struct FleetHealth {
    /// The nodes whose figures are older than three intervals, by id.
    var staleNodes: [String]
    /// Each node's age of its last `P/metrics`, the oldest.
    var oldestSeconds: Double?
    /// The nodes' counters added up, in the shape of `P/metrics` (counters and catalog only).
    var summary: JSONValue
    var reporting: Int

    /// - Parameters:
    ///   - latest: each node's last `P/metrics`, nil when none arrived.
    ///   - interval: the nodes' `--metrics-interval`, for a node that does not say its own.
    ///   - since: when the nodes started, the age of a node never heard from.
    init(latest: [(id: String, metrics: JSONValue?)], interval: Double, now: Date, since: Date) {
        var stale: [String] = []
        var oldest: Double?
        var sums: [String: [String: Double]] = [:]
        var reporting = 0
        for (id, metrics) in latest {
            let timestamp = metrics?["timestamp"]?.stringValue.flatMap(Self.date(iso8601:)) ?? since
            let age = now.timeIntervalSince(timestamp)
            oldest = max(oldest ?? age, age)
            // Each node by its own interval when it says one (a node outside the rig may report more often);
            // the timestamp counts whole seconds, so a report may look up to a second older than it is.
            let own = metrics?["intervalSeconds"]?.numberValue.flatMap { $0 > 0 ? $0 : nil } ?? interval
            if age > 3 * own + 1 { stale.append(id) }
            guard let metrics else { continue }
            reporting += 1
            for group in Self.summed {
                for (key, value) in metrics[group]?.objectValue ?? [:] {
                    sums[group, default: [:]][key, default: 0] += value.numberValue ?? (value == .bool(true) ? 1 : 0)
                }
            }
        }
        staleNodes = stale.sorted()
        oldestSeconds = oldest
        self.reporting = reporting
        summary = .object(sums.mapValues { .object($0.mapValues(JSONValue.number)) })
    }

    /// The groups of `P/metrics` whose members are counts that add up across nodes.
    static let summed = ["commands", "playback", "broker", "catalog", "downloads"]

    /// `2026-11-28T08:00:00Z`, the form the node writes.
    static func date(iso8601 text: String) -> Date? {
        let parts = text.split(whereSeparator: { "-T:Z".contains($0) }).compactMap { Int32($0) }
        guard parts.count == 6 else { return nil }
        var fields = tm()
        fields.tm_year = parts[0] - 1900
        fields.tm_mon = parts[1] - 1
        fields.tm_mday = parts[2]
        fields.tm_hour = parts[3]
        fields.tm_min = parts[4]
        fields.tm_sec = parts[5]
        return Date(timeIntervalSince1970: TimeInterval(timegm(&fields)))
    }

    var json: JSONValue {
        [
            "stale": .number(Double(staleNodes.count)),
            "staleNodes": .array(staleNodes.map(JSONValue.string)),
            "reporting": .number(Double(reporting)),
            "oldestMetricsSeconds": oldestSeconds.map { .number(($0 * 10).rounded() / 10) } ?? .null,
            "fleet": summary,
        ]
    }
}
