import CMosquitto
import Dispatch
import Foundation

// MARK: - One connection, and fail-back from it

extension MQTTClient {
    /// Serves the connection (see `serveOnce`) until it ends; meanwhile asks again for refused subscriptions
    /// and, away from the first broker, tries the first every `failbackInterval`.
    func serveConnection(toBrokerAt index: Int) {
        let generation = beginConnection()
        var nextProbe = ContinuousClock.now + configuration.failbackInterval
        var loopCode = Int32(MOSQ_ERR_SUCCESS.rawValue)
        var goodbye: Goodbye?
        defer { goodbye?.finish() }
        while loopCode == Int32(MOSQ_ERR_SUCCESS.rawValue) {
            if goodbye == nil, isShuttingDown { goodbye = Goodbye(waitingForAcknowledgements: true) }
            if goodbye != nil {
                goodbye!.advance(self)
                if goodbye!.isOverdue { break }
            }
            loopCode = serveOnce(timeout: goodbye == nil ? loopTimeout(until: index == 0 ? nil : nextProbe) : 10)
            askAgainForRefusedSubscriptions()
            settleTakeovers()
            guard index != 0, goodbye == nil, !isShuttingDown else { continue }
            if state.withLock({ $0.firstBrokerAnswers && !$0.isFailingBack }) {
                goodbye = leaveForFirstBroker(from: index)
            } else if ContinuousClock.now >= nextProbe {
                nextProbe = ContinuousClock.now + configuration.failbackInterval
                probeFirstBroker(generation: generation)
            }
        }
    }

    /// Milliseconds libmosquitto's loop may wait for traffic before a due retry or probe.
    func loopTimeout(until probe: ContinuousClock.Instant?) -> Int {
        var due = state.withLock { $0.subscriptionRetries.values.min() }
        if let probe { due = min(due ?? probe, probe) }
        guard let due else { return 1000 }
        let wait = due - ContinuousClock.now
        return max(10, min(1000, Int(wait.components.seconds * 1000 + wait.components.attoseconds / 1_000_000_000_000_000)))
    }

    /// Tries the first broker off the network thread; the loop, which waits at most a second for traffic,
    /// moves there once it has answered.
    func probeFirstBroker(generation: Int) {
        let first = configuration.brokers[0]
        let isProbing = state.withLock { state in
            defer { state.isProbingFirstBroker = true }
            return state.isProbingFirstBroker
        }
        guard !isProbing else { return }
        DispatchQueue.global().async { [self] in
            let answers = BrokerProbe.answers(first)
            state.withLock { state in
                state.isProbingFirstBroker = false
                if answers && state.connectionGeneration == generation { state.firstBrokerAnswers = true }
            }
        }
    }

    /// Fail-back: a clean DISCONNECT (the broker drops the will, so no `offline` lands on a retained status
    /// topic a cluster shares), after which `runNetworkLoop` connects to the first broker.
    func leaveForFirstBroker(from index: Int) -> Goodbye {
        state.withLock { $0.isFailingBack = true }
        logger.info("the first broker \(configuration.brokers[0]) answers again: leaving \(configuration.brokers[index]) for it")
        var goodbye = Goodbye(waitingForAcknowledgements: false)
        goodbye.advance(self)
        return goodbye
    }
}
