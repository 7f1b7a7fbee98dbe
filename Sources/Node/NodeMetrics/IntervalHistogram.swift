import Synchronization

/// Reply times of one interval, recorded without a lock: a command's reply path adds to two atomics.
///
/// Log-linear buckets of microseconds, 16 per doubling (every value within 1/16 of its bucket's midpoint,
/// about 3%), exact below 16 µs and capped at 2^31 µs (36 minutes, far past any reply deadline). The
/// maximum is kept exactly. `drain` empties it for the next interval; a value recorded during a drain
/// lands in one interval or the other, never in neither.
public final class IntervalHistogram: Sendable {
    static let subBuckets = 16
    static let subBits = 4
    static let highestExponent = 30
    static let bucketCount = subBuckets + (highestExponent - subBits + 1) * subBuckets

    private let buckets: InlineArray<448, Atomic<Int>>
    private let maximum = Atomic<Int>(0)

    public init() {
        precondition(Self.bucketCount == 448)
        buckets = InlineArray { _ in Atomic(0) }
    }

    /// Records one value in microseconds.
    public func record(microseconds value: Int) {
        let clamped = min(max(value, 0), Int(Int32.max))
        buckets[Self.bucket(of: clamped)].wrappingAdd(1, ordering: .relaxed)
        var seen = maximum.load(ordering: .relaxed)
        while clamped > seen {
            let (exchanged, original) = maximum.weakCompareExchange(
                expected: seen, desired: clamped, ordering: .relaxed)
            if exchanged { break }
            seen = original
        }
    }

    /// The interval's quantiles in microseconds, and empties it; nil when nothing was recorded.
    public func drain() -> Quantiles? {
        var counts = [Int](repeating: 0, count: Self.bucketCount)
        var total = 0
        for index in 0..<Self.bucketCount {
            counts[index] = buckets[index].exchange(0, ordering: .relaxed)
            total += counts[index]
        }
        let largest = maximum.exchange(0, ordering: .relaxed)
        guard total > 0 else { return nil }
        func quantile(_ q: Double) -> Double {
            // The rank of the q-th value, 1-based: p50 of 10 values is the 5th, p99 of 10 is the 10th.
            let rank = max(1, Int((q * Double(total)).rounded(.up)))
            var seen = 0
            for index in 0..<Self.bucketCount {
                seen += counts[index]
                if seen >= rank { return min(Self.midpoint(of: index), Double(largest)) }
            }
            return Double(largest)
        }
        return Quantiles(count: total, p50: quantile(0.5), p99: quantile(0.99), maximum: Double(largest))
    }

    static func bucket(of value: Int) -> Int {
        guard value >= subBuckets else { return value }
        let exponent = Int.bitWidth - value.leadingZeroBitCount - 1
        let sub = (value >> (exponent - subBits)) & (subBuckets - 1)
        return subBuckets + (exponent - subBits) * subBuckets + sub
    }

    static func midpoint(of index: Int) -> Double {
        guard index >= subBuckets else { return Double(index) }
        let exponent = (index - subBuckets) / subBuckets + subBits
        let sub = (index - subBuckets) % subBuckets
        let width = 1 << (exponent - subBits)
        return Double((subBuckets + sub) * width) + Double(width - 1) / 2
    }

    /// What one interval's values came to, in the unit they were recorded in.
    public struct Quantiles: Sendable, Equatable {
        public var count: Int
        public var p50: Double
        public var p99: Double
        public var maximum: Double
    }
}
