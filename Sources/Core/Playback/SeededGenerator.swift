/// A small seedable random number generator (SplitMix64), so a shuffled order is reproducible:
/// tests pin the seed, and the same seed gives the same order on every toolchain.
public struct SeededGenerator: RandomNumberGenerator, Sendable, Equatable {
    private var state: UInt64

    public init(seed: UInt64) {
        state = seed
    }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A uniform-enough integer in `0..<upperBound`; spelled out here rather than taken from the
    /// standard library so the sequence never changes with the standard library's algorithm.
    public mutating func nextIndex(below upperBound: Int) -> Int {
        precondition(upperBound > 0)
        return Int(next() % UInt64(upperBound))
    }
}

extension Array {
    /// Fisher–Yates with our own generator, for the same reason as `nextIndex(below:)`.
    mutating func stableShuffle(using generator: inout SeededGenerator) {
        guard count > 1 else { return }
        for index in stride(from: count - 1, to: 0, by: -1) {
            swapAt(index, generator.nextIndex(below: index + 1))
        }
    }
}
