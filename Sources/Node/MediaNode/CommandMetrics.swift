import CoreMetrics
import NodeMetrics
import RemoteCommands

/// The reply path's handles: one counter per status, made up front (a scrape lists every status from the
/// start), and the reply timer. Counting a reply is two atomic adds, no lock.
struct CommandMetrics: Sendable {
    private let answered: [CommandStatus: Counter]
    private let reply: CoreMetrics.Timer

    init(factory: any MetricsFactory) {
        answered = Dictionary(uniqueKeysWithValues: CommandStatus.allCases.map { status in
            (status, Counter(label: MetricName.commands, dimensions: [(MetricName.statusDimension, status.rawValue)],
                             factory: factory))
        })
        reply = CoreMetrics.Timer(label: MetricName.reply, factory: factory)
    }

    /// A reply went out with `status`, for a request that arrived at `receivedAt`.
    func answered(_ status: CommandStatus, receivedAt: ContinuousClock.Instant) {
        answered[status]?.increment()
        let (seconds, attoseconds) = (ContinuousClock.now - receivedAt).components
        reply.recordNanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }
}
