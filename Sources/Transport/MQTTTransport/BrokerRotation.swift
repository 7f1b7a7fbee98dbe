/// Which broker the client tries next: the first that answers, the next in turn when a connection is
/// lost or an attempt fails, and the first again on fail-back. A plain value the network loop owns.
public struct BrokerRotation: Sendable, Equatable {
    /// What the loop does after an attempt or a connection ends.
    public enum Next: Sendable, Equatable {
        /// Try `current` at once.
        case tryNow
        /// Every broker failed in turn `round` times since the last connection: back off, then try `current`.
        case wait(round: Int)
    }

    public let count: Int
    /// The index of the broker to try (or the one connected).
    public private(set) var current = 0
    /// Attempts failed in a row since the last connection.
    private var failures = 0

    public init(count: Int) {
        precondition(count > 0, "at least one broker")
        self.count = count
    }

    /// Whether the broker at `current` is the first, preferred one (no fail-back to do).
    public var isOnFirst: Bool { current == 0 }

    /// A working connection was lost: the next broker is tried at once. A single broker is retried after
    /// the shortest back-off, as it was before there could be several.
    public mutating func lost() -> Next {
        failures = 0
        guard count > 1 else { return .wait(round: 1) }
        current = (current + 1) % count
        return .tryNow
    }

    /// An attempt failed (unreachable, refused): the next broker in turn, with a back-off after each round.
    public mutating func failed() -> Next {
        failures += 1
        current = (current + 1) % count
        return failures % count == 0 ? .wait(round: failures / count) : .tryNow
    }

    /// Back to the first broker, which answers again.
    public mutating func failBack() {
        current = 0
        failures = 0
    }
}
