import CMosquitto
import Foundation

// MARK: - Subscriptions and their grants

extension MQTTClient {
    /// A SUBSCRIBE on its way to the broker, by message id.
    struct PendingGrant: Sendable {
        var filter: String
        var qos: Int
    }

    /// Sends a SUBSCRIBE and records it for its SUBACK; returns what went wrong, if anything. Called with
    /// `state` locked, so the SUBACK cannot be handled before it is recorded.
    func sendSubscribe(_ filter: String, qos: Int, state: inout State) -> MQTTError? {
        var mid: Int32 = 0
        let code = mosquitto_subscribe_v5(handle, &mid, filter, Int32(qos), 0, nil)
        guard code == Int32(MOSQ_ERR_SUCCESS.rawValue) else {
            return .library(call: "mosquitto_subscribe \(filter)", code: code, message: Mosquitto.describe(code))
        }
        state.pendingGrants[mid] = PendingGrant(filter: filter, qos: qos)
        wakeNetwork()
        return nil
    }

    /// Called on the network thread with the broker's SUBACK. A refused subscription is asked for again
    /// at once at QoS 0 when QoS 1 was refused (a cluster that lost a member may only grant QoS 0), then
    /// every second until granted, unless it is not awaited; the connection is announced once every awaited
    /// subscription it started with is granted.
    func didSubscribe(mid: Int32, granted codes: [Int32]) {
        enum Outcome {
            case granted(filter: String, qos: Int32, wasRefused: Bool, announce: Bool)
            case refused(filter: String, qos: Int, code: Int32, again: String, firstTime: Bool)
        }
        let outcome: Outcome? = state.withLock { state in
            guard let pending = state.pendingGrants.removeValue(forKey: mid), let code = codes.first else { return nil }
            if code < 0x80 {
                let wasRefused = state.refusedFilters.remove(pending.filter) != nil
                state.awaitingGrants.remove(pending.filter)
                let announce = !state.isAnnounced && state.awaitingGrants.isEmpty
                if announce { state.isAnnounced = true }
                return .granted(filter: pending.filter, qos: code, wasRefused: wasRefused, announce: announce)
            }
            let firstTime = state.refusedFilters.insert(pending.filter).inserted
            if pending.qos > 0 {
                if let failure = sendSubscribe(pending.filter, qos: 0, state: &state) {
                    state.subscriptionRetries[pending.filter] = .now + .seconds(1)
                    return .refused(filter: pending.filter, qos: pending.qos, code: code,
                                    again: "asking again in a second (\(failure))", firstTime: firstTime)
                }
                return .refused(filter: pending.filter, qos: pending.qos, code: code, again: "asking again at once at QoS 0",
                                firstTime: firstTime)
            }
            guard !state.unawaited.contains(pending.filter) else {
                return .refused(filter: pending.filter, qos: 0, code: code, again: "not asking again on this connection",
                                firstTime: firstTime)
            }
            state.subscriptionRetries[pending.filter] = .now + .seconds(1)
            return .refused(filter: pending.filter, qos: 0, code: code, again: "asking again every second until granted",
                            firstTime: firstTime)
        }
        switch outcome {
        case nil:
            return
        case let .granted(filter, qos, wasRefused, announce):
            if wasRefused { logger.notice("the broker granted the subscription to \(filter) (QoS \(qos))") }
            if announce { continuation.yield(.connected(sessionPresent: false)) }
        case let .refused(filter, qos, code, again, firstTime):
            let reason = configuration.protocolVersion == .v5 ? Mosquitto.reason(code, version: .v5) : "failure"
            let text = "the broker refused the subscription to \(filter) at QoS \(qos) (\(reason)); \(again)"
            if firstTime { logger.warning("\(text)") } else { logger.debug("\(text)") }
        }
    }

    /// Called on the network thread: sends the retries that are due, at QoS 0.
    func askAgainForRefusedSubscriptions() {
        let failures: [MQTTError] = state.withLock { state in
            let now = ContinuousClock.now
            let due = state.subscriptionRetries.filter { $0.value <= now }.keys.sorted()
            guard !due.isEmpty, state.isConnected else { return [] }
            var failures: [MQTTError] = []
            for filter in due {
                if let failure = sendSubscribe(filter, qos: 0, state: &state) {
                    state.subscriptionRetries[filter] = now + .seconds(1)
                    failures.append(failure)
                } else {
                    state.subscriptionRetries[filter] = nil
                }
            }
            return failures
        }
        for failure in failures { logger.debug("\(failure)") }
    }
}
