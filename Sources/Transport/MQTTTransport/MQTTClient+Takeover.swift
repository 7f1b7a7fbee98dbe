import Foundation

// MARK: - Another client with the same id

extension MQTTClient {
    /// Called on the network thread when a lost connection was taken over (see `TakeoverWatch`): counts
    /// it, and logs the conflict when it starts and then at most once a minute, not at every reconnect.
    func noteTakeover(wait: Double, report: TakeoverWatch.Report?) {
        if let metrics = configuration.connectionMetrics {
            metrics.takeovers?.increment()
            if report?.isFirst == true { metrics.clientIDConflict?.record(1) }
        }
        let next = "next try in \(Int(wait.rounded())) s"
        guard let report else {
            logger.debug("taken over again by the other client with the client id '\(configuration.clientID)'; \(next)")
            return
        }
        if report.isFirst {
            let message = "another client uses the same client id '\(configuration.clientID)' on this broker (a second node with the same --node-id?): "
                + "the broker closes each one's connection when the other connects. Give every node its own --node-id. "
                + "Meanwhile this node reconnects less and less often, up to once a minute, and says so here once a minute; \(next)"
            logger.warning("\(message)")
        } else {
            let times = report.takeovers == 1 ? "once" : "\(report.takeovers) times"
            logger.warning("the client id '\(configuration.clientID)' is still used by another client: taken over \(times) since the last report; \(next)")
        }
    }

    /// Called on the network thread while connected: ends a conflict once the connection has outlived it.
    func settleTakeovers() {
        let isOver = state.withLock { state in state.takeovers.settle(at: .now) }
        guard isOver else { return }
        configuration.connectionMetrics?.clientIDConflict?.record(0)
        let minutes = Int(TakeoverWatch.settledAfter.components.seconds / 60)
        logger.notice("no other client has taken this connection over for \(minutes) minutes: the client id conflict is over")
    }
}
