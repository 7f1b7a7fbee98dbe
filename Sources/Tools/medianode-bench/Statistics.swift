import Foundation

/// Latency samples in microseconds, summarised as a reader compares them: median, p90, p99.
struct LatencySamples: Sendable {
    var values: [Double] = []

    mutating func append(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        values.append(Double(seconds) * 1e6 + Double(attoseconds) / 1e12)
    }

    func percentile(_ p: Double) -> Double {
        guard !values.isEmpty else { return .nan }
        let sorted = values.sorted()
        let rank = min(sorted.count - 1, max(0, Int((p / 100 * Double(sorted.count)).rounded(.up)) - 1))
        return sorted[rank]
    }

    var median: Double { percentile(50) }
}

/// Prints one operation beside its floor, with the ratio of medians.
func report(_ title: String, subject: (String, LatencySamples), floor: (String, LatencySamples)) {
    func row(_ name: String, _ samples: LatencySamples) -> String {
        String(format: "  %-46@ n=%6d  p50 %8.1f µs  p90 %8.1f µs  p99 %8.1f µs", name as NSString, samples.values.count,
               samples.median, samples.percentile(90), samples.percentile(99))
    }
    print(title)
    print(row(subject.0, subject.1))
    print(row(floor.0, floor.1))
    // A floor of 0 (or no samples) has no ratio; printing one would show nan or inf.
    let ratio = floor.1.median > 0 ? String(format: "%.2fx", subject.1.median / floor.1.median) : "n/a"
    print(String(format: "  ratio (p50 subject / p50 floor): %@; difference %.1f µs",
                 ratio as NSString, subject.1.median - floor.1.median))
}
