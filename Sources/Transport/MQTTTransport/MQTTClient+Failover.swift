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
        var saidGoodbye = false
        while loopCode == Int32(MOSQ_ERR_SUCCESS.rawValue) {
            if isShuttingDown, !saidGoodbye {
                saidGoodbye = true
                disconnectAfterReading()
            }
            loopCode = serveOnce(timeout: loopTimeout(until: index == 0 ? nil : nextProbe))
            askAgainForRefusedSubscriptions()
            guard index != 0, !isShuttingDown else { continue }
            if state.withLock({ $0.firstBrokerAnswers && !$0.isFailingBack }) {
                leaveForFirstBroker(from: index)
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
    func leaveForFirstBroker(from index: Int) {
        state.withLock { $0.isFailingBack = true }
        logger.info("the first broker \(configuration.brokers[0]) answers again: leaving \(configuration.brokers[index]) for it")
        disconnectAfterReading()
    }

    /// A clean DISCONNECT, on the network thread, at shutdown and at fail-back: the broker drops the will.
    func disconnectAfterReading() {
        readWhatIsWaiting()
        mosquitto_disconnect_v5(handle, Int32(MQTT_RC_NORMAL_DISCONNECTION.rawValue), nil)
        // Written now, right after the reads: libmosquitto closes the socket as soon as DISCONNECT is out.
        _ = mosquitto_loop_write(handle, 1)
    }

    /// Reads every packet the broker has sent so far. libmosquitto closes the socket right after writing
    /// DISCONNECT, and Linux answers the close of a socket with unread data with a reset instead of an
    /// orderly end; a broker that then fails to write to the connection before it reads the DISCONNECT
    /// counts it as lost and sends the will, so an `offline` could land on the broker being left.
    private func readWhatIsWaiting() {
        for _ in 0..<1000 {
            var waiting = pollfd(fd: mosquitto_socket(handle), events: Int16(POLLIN), revents: 0)
            guard waiting.fd >= 0, poll(&waiting, 1, 0) == 1, waiting.revents & Int16(POLLIN) != 0,
                  mosquitto_loop_read(handle, 1) == Int32(MOSQ_ERR_SUCCESS.rawValue)
            else { return }
        }
    }
}
