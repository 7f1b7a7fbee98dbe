import CoreMetrics
import Synchronization

// MARK: - The handlers the node's swift-metrics handles write to

/// A counter: one relaxed atomic add for `P/metrics`, and the Prometheus counter's own for the scrape.
final class CountingHandler: CounterHandler, Sendable {
    private let count = Atomic<Int64>(0)
    private let exported: any CounterHandler

    init(exported: any CounterHandler) { self.exported = exported }

    var value: Int64 { count.load(ordering: .relaxed) }

    func increment(by amount: Int64) {
        count.wrappingAdd(amount, ordering: .relaxed)
        exported.increment(by: amount)
    }

    func reset() {
        count.store(0, ordering: .relaxed)
        exported.reset()
    }
}

/// A gauge (a recorder that does not aggregate): the last value set.
final class GaugeHandler: RecorderHandler, Sendable {
    private let bits = Atomic<UInt64>(0)
    private let exported: any RecorderHandler

    init(exported: any RecorderHandler) { self.exported = exported }

    var value: Double { Double(bitPattern: bits.load(ordering: .relaxed)) }

    func record(_ value: Int64) { record(Double(value)) }

    func record(_ value: Double) {
        bits.store(value.bitPattern, ordering: .relaxed)
        exported.record(value)
    }
}

/// A timer whose values go into the interval's histogram. Not forwarded to a Prometheus histogram, whose
/// buckets sit behind a lock: the scrape gets the last interval's quantiles as gauges instead.
final class IntervalTimerHandler: TimerHandler, Sendable {
    let histogram = IntervalHistogram()

    func recordNanoseconds(_ duration: Int64) {
        histogram.record(microseconds: Int(duration / 1000))
    }
}
