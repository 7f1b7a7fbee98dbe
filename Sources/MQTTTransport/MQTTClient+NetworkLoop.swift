import CMosquitto
import Dispatch
import Foundation

// MARK: - The network thread

extension MQTTClient {
    /// Runs libmosquitto's loop on this client's own thread. libmosquitto's loop_forever (and so
    /// loop_start) gives up for good on TLS, authentication and DNS errors and sleeps uninterruptibly
    /// between retries; this loop retries every error with back-off and wakes at once for shutdown.
    func runNetworkLoop() {
        networkThread.store(pthread_self(), ordering: .relaxed)
        var attempt = 0
        var everConnected = false
        while !isShuttingDown {
            let broker = configuration.broker
            let code: Int32 =
                everConnected
                ? mosquitto_reconnect(handle)
                : mosquitto_connect_bind_v5(handle, broker.host, Int32(broker.port), Int32(configuration.keepAlive),
                                            nil, nil)
            if code == Int32(MOSQ_ERR_SUCCESS.rawValue) {
                everConnected = true
                var loopCode = Int32(MOSQ_ERR_SUCCESS.rawValue)
                while loopCode == Int32(MOSQ_ERR_SUCCESS.rawValue) {
                    loopCode = mosquitto_loop(handle, 1000, 1)
                }
                if isShuttingDown { break }
                if loopCode == Int32(MOSQ_ERR_CONN_LOST.rawValue) || loopCode == Int32(MOSQ_ERR_NO_CONN.rawValue) {
                    attempt = 0
                }
            } else {
                noteProblem("cannot reach broker \(broker): \(Mosquitto.describe(code))")
            }
            attempt += 1
            let delay = backoff(attempt: attempt)
            _ = wakeUp.wait(timeout: .now() + delay)
        }
        threadFinished.signal()
    }

    /// Back-off with jitter, so a fleet of nodes does not reconnect in lockstep after a broker restart.
    /// A broker restarting is back within seconds, and the contract wants retained state there within
    /// 2 s of it: the first tries come at a quarter and a half of the initial delay, then every initial
    /// delay for ten tries, and only then twice as long each time, up to the maximum.
    func backoff(attempt: Int) -> Double {
        let initial = max(0.1, Double(max(configuration.reconnectDelay.initial, 0)))
        let maximum = Double(max(configuration.reconnectDelay.maximum, 1))
        let base = switch attempt {
        case ...2: initial * pow(2, Double(attempt - 3))
        case ...12: initial
        default: initial * pow(2, Double(min(attempt, 30) - 12))
        }
        return min(maximum, base) * Double.random(in: 0.5...1.0)
    }

    var isShuttingDown: Bool { state.withLock { $0.isShuttingDown } }

    /// Disconnects and joins the network thread. Blocks: call only off the cooperative pool.
    func stopNetworkThread() {
        let started = state.withLock { state -> Bool in
            state.isShuttingDown = true
            return state.isStarted
        }
        mosquitto_disconnect_v5(handle, Int32(MQTT_RC_NORMAL_DISCONNECTION.rawValue), nil)
        guard started else { return }
        wakeUp.signal()
        threadFinished.wait()
    }

    /// Logs a connection problem once per change of state rather than on every retry.
    func noteProblem(_ problem: String) {
        let isNew = state.withLock { state -> Bool in
            defer { state.lastProblem = problem }
            return state.lastProblem != problem
        }
        if isNew { logger.warning("\(problem); retrying with back-off") }
    }
}

// MARK: - libmosquitto callbacks

extension MQTTClient {
    func installCallbacks() {
        mosquitto_user_data_set(handle, Unmanaged.passUnretained(self).toOpaque())
        mosquitto_connect_v5_callback_set(handle) { _, context, code, flags, _ in
            guard let context else { return }
            Unmanaged<MQTTClient>.fromOpaque(context).takeUnretainedValue().didConnect(code: code, flags: flags)
        }
        mosquitto_disconnect_v5_callback_set(handle) { _, context, code, _ in
            guard let context else { return }
            Unmanaged<MQTTClient>.fromOpaque(context).takeUnretainedValue().didDisconnect(code: code)
        }
        mosquitto_publish_v5_callback_set(handle) { _, context, mid, reason, _ in
            guard let context else { return }
            Unmanaged<MQTTClient>.fromOpaque(context).takeUnretainedValue().didAcknowledge(mid: mid, reason: reason)
        }
        mosquitto_message_v5_callback_set(handle) { _, context, message, properties in
            guard let context, let message else { return }
            Unmanaged<MQTTClient>.fromOpaque(context).takeUnretainedValue()
                .didReceive(message.pointee, properties: properties)
        }
    }

    /// Called on the network thread.
    func didConnect(code: Int32, flags: Int32) {
        guard code == 0 else {
            let reason = Mosquitto.reason(code, version: configuration.protocolVersion)
            noteProblem("broker \(configuration.broker) refused the connection: \(reason)")
            return
        }
        let sessionPresent = flags & 1 != 0
        let subscriptions = state.withLock { state in
            state.isConnected = true
            state.connectedAt = .now
            state.lastProblem = nil
            return state.subscriptions
        }
        logger.info("connected to \(configuration.broker) as '\(configuration.clientID)' (MQTT \(configuration.protocolVersion.rawValue))")
        if !sessionPresent {
            for (filter, qos) in subscriptions.sorted(by: { $0.key < $1.key }) {
                let code = mosquitto_subscribe_v5(handle, nil, filter, Int32(qos), 0, nil)
                if code != Int32(MOSQ_ERR_SUCCESS.rawValue) {
                    logger.error("cannot subscribe to \(filter): \(Mosquitto.describe(code))")
                }
            }
        }
        continuation.yield(.connected(sessionPresent: sessionPresent))
    }

    /// Called on the network thread.
    func didDisconnect(code: Int32) {
        let (wasConnected, shuttingDown, quickDrops) = state.withLock { state in
            defer { state.isConnected = false }
            if let connectedAt = state.connectedAt, ContinuousClock.now - connectedAt < .seconds(3) {
                state.quickDrops += 1
            } else {
                state.quickDrops = 0
            }
            return (state.isConnected, state.isShuttingDown, state.quickDrops)
        }
        guard !shuttingDown else { return }
        let reason: String
        // libmosquitto 2.0 reports a broker's "session taken over" as a plain lost connection, so a
        // connection that keeps dropping right after it is made is the tell-tale as well.
        if code == Int32(MQTT_RC_SESSION_TAKEN_OVER.rawValue) || quickDrops >= 2 {
            reason = "the broker keeps dropping this connection as soon as it is made: most likely another client "
                + "uses the same client id '\(configuration.clientID)' (give every node its own --node-id)"
        } else if configuration.protocolVersion == .v5 && code >= 0x80 {
            reason = "broker disconnected us: \(Mosquitto.reason(code, version: .v5))"
        } else {
            reason = "connection lost: \(Mosquitto.describe(code))"
        }
        if wasConnected { noteProblem(reason) }
        continuation.yield(.disconnected(reason: reason))
    }

    /// Called on the network thread when the broker acknowledges a QoS 1 publish.
    func didAcknowledge(mid: Int32, reason: Int32) {
        let waiter = state.withLock { $0.pendingAcknowledgements.removeValue(forKey: mid) }
        guard let waiter else { return }
        if reason >= 0x80 {
            waiter.resume(throwing: MQTTError.library(
                call: "publish acknowledgement", code: reason,
                message: Mosquitto.reason(reason, version: .v5)))
        } else {
            waiter.resume()
        }
    }

    /// Called on the network thread. Copies topic, payload and properties: libmosquitto frees them on return.
    func didReceive(_ message: mosquitto_message, properties: OpaquePointer?) {
        let topic = String(cString: message.topic)
        let payload: [UInt8] =
            if let bytes = message.payload, message.payloadlen > 0 {
                Array(UnsafeRawBufferPointer(start: bytes, count: Int(message.payloadlen)))
            } else {
                []
            }
        let inbound = MQTTMessage(
            topic: topic, payload: payload, qos: Int(message.qos), retain: message.retain,
            properties: Self.readProperties(properties))
        if let messageHandler {
            messageHandler(inbound)
        } else if let router = router.withLock({ $0 }), router.route(inbound) {
            return
        } else {
            continuation.yield(.message(inbound))
        }
    }

    static func readProperties(_ list: OpaquePointer?) -> MQTTProperties {
        guard let list else { return .init() }
        var result = MQTTProperties()
        var text: UnsafeMutablePointer<CChar>? = nil
        if mosquitto_property_read_string(list, Int32(MQTT_PROP_RESPONSE_TOPIC.rawValue), &text, false) != nil,
           let text {
            result.responseTopic = String(cString: text)
            free(text)
        }
        var contentType: UnsafeMutablePointer<CChar>? = nil
        if mosquitto_property_read_string(list, Int32(MQTT_PROP_CONTENT_TYPE.rawValue), &contentType, false) != nil,
           let contentType {
            result.contentType = String(cString: contentType)
            free(contentType)
        }
        var data: UnsafeMutableRawPointer? = nil
        var length: UInt16 = 0
        if mosquitto_property_read_binary(list, Int32(MQTT_PROP_CORRELATION_DATA.rawValue), &data, &length, false) != nil {
            result.correlationData = data.map { Array(UnsafeRawBufferPointer(start: $0, count: Int(length))) } ?? []
            free(data)
        }
        var expiry: UInt32 = 0
        if mosquitto_property_read_int32(list, Int32(MQTT_PROP_MESSAGE_EXPIRY_INTERVAL.rawValue), &expiry, false) != nil {
            result.messageExpiry = expiry
        }
        return result
    }
}
