/// Tells a connection that another client took over (a second client with the same client id: two nodes
/// started with one `--node-id`) from one lost for any other reason, and paces the reconnects while that
/// lasts. A plain value the network loop owns.
///
/// The broker says nothing about it: mosquitto 2.0 closes the old connection without the DISCONNECT
/// (0x8E, session taken over) that MQTT 5 has for it, so the client sees a plain lost connection. The
/// signs are in what follows. A client that reads its own will topic (the node reads its `P/status`)
/// finds, right after taking the connection back, the other connection's will retained there, just
/// published by the broker as it closed that connection: a connection taken back at the first try that
/// found such a will and is lost within minutes was taken over. Without that (a broker's ACL that does
/// not let it read the topic), the timing alone: taken back at the first try and lost again within a
/// second, as the other client reconnects as fast. A broker restarting publishes no will and usually
/// refuses that first try.
///
/// Without a pause, two such clients take the connection from each other as fast as they reconnect, each
/// connection sending the node's `online` and the broker its will's `offline`. Once recognised, each
/// lost connection waits `firstWait`, doubling up to `maximumWait` (with jitter upwards, so the two drift
/// apart), and the conflict is reported when it starts and then at most once per `reportInterval`. It is
/// over when a connection lives `settledAfter`, longer than the other client waits.
public struct TakeoverWatch: Sendable {
    /// A connection accepted this soon after the last one was lost, at the first try, is a rejoin.
    public static let rejoinWindow: Duration = .seconds(2)
    /// A rejoin that found a will and is lost within this was taken over.
    public static let handOverLifetime: Duration = .seconds(120)
    /// A rejoin lost again within this was taken over (the other client is reconnecting as fast).
    public static let quickHandOver: Duration = .seconds(1)
    /// A connection that lasts this long in a conflict ends it: the other client has stopped trying.
    public static let settledAfter: Duration = .seconds(120)
    public static let reportInterval: Duration = .seconds(60)
    /// Seconds before the first reconnect after a takeover; each next one waits twice as long, up to `maximumWait`.
    public static let firstWait = 10.0
    public static let maximumWait = 60.0

    /// What a lost connection was, and what the loop does next.
    public enum Verdict: Equatable, Sendable {
        /// Lost as connections are: reconnect as usual.
        case lost
        /// Taken over by another client with the same id: wait `seconds` before the next try.
        case takenOver(wait: Double, report: Report?)
    }

    /// What to log about the conflict now: its start, or once per `reportInterval` how it goes on.
    public struct Report: Equatable, Sendable {
        /// The conflict was recognised just now.
        public var isFirst: Bool
        /// Takeovers since the last report (this one included).
        public var takeovers: Int

        public init(isFirst: Bool, takeovers: Int) {
            self.isFirst = isFirst
            self.takeovers = takeovers
        }
    }

    private struct Connection {
        var broker: Int
        var acceptedAt: ContinuousClock.Instant
        var isRejoin: Bool
        var foundWill = false
    }

    /// When the conflict was recognised; nil when there is none.
    public private(set) var conflictSince: ContinuousClock.Instant?
    /// Takeovers recognised in all, for the owner's counter.
    public private(set) var takeovers = 0
    private var round = 0
    private var connection: Connection?
    private var lastLoss: (broker: Int, at: ContinuousClock.Instant)?
    private var lastReport: ContinuousClock.Instant?
    private var unreported = 0

    public init() {}

    public var isInConflict: Bool { conflictSince != nil }

    /// The broker at index `broker` accepted a connection.
    public mutating func accepted(broker: Int, at now: ContinuousClock.Instant) {
        let isRejoin = lastLoss.map { $0.broker == broker && now - $0.at <= Self.rejoinWindow } ?? false
        connection = Connection(broker: broker, acceptedAt: now, isRejoin: isRejoin)
        lastLoss = nil
    }

    /// The client's own will came retained on this connection: on a rejoin, another connection with its
    /// id was just closed without a goodbye (at a first start it is only the last run's).
    public mutating func foundWill() {
        if connection?.isRejoin == true { connection?.foundWill = true }
    }

    /// An attempt failed (unreachable, refused): the next accepted connection is no rejoin.
    public mutating func attemptFailed() {
        lastLoss = nil
    }

    /// The client ended the connection itself (fail-back, shutdown).
    public mutating func left() {
        connection = nil
        lastLoss = nil
    }

    /// A connection the broker had accepted was lost. `isCertain`: the broker said so (reason 0x8E).
    public mutating func lost(at now: ContinuousClock.Instant, isCertain: Bool = false,
                              jitter: Double = Double.random(in: 1.0...1.25)) -> Verdict {
        guard let connection else { return .lost }
        self.connection = nil
        lastLoss = (connection.broker, now)
        let lived = now - connection.acceptedAt
        let handedOver = (connection.foundWill && lived < Self.handOverLifetime)
            || (connection.isRejoin && lived < Self.quickHandOver)
        guard isCertain || handedOver || (isInConflict && lived < Self.settledAfter) else {
            endConflict()
            return .lost
        }
        takeovers += 1
        round += 1
        unreported += 1
        let isFirst = conflictSince == nil
        if isFirst { conflictSince = now }
        var report: Report?
        if isFirst || lastReport.map({ now - $0 >= Self.reportInterval }) ?? true {
            report = Report(isFirst: isFirst, takeovers: unreported)
            lastReport = now
            unreported = 0
        }
        return .takenOver(wait: Self.wait(round: round) * jitter, report: report)
    }

    /// While connected: true, once, when the connection has outlived a conflict (see `settledAfter`).
    public mutating func settle(at now: ContinuousClock.Instant) -> Bool {
        guard isInConflict, let connection, now - connection.acceptedAt >= Self.settledAfter else { return false }
        endConflict()
        return true
    }

    /// Seconds before the next try after the `round`th takeover in a row, before jitter.
    public static func wait(round: Int) -> Double {
        min(maximumWait, firstWait * Double(1 << min(max(round - 1, 0), 10)))
    }

    private mutating func endConflict() {
        conflictSince = nil
        round = 0
        lastReport = nil
        unreported = 0
    }
}
