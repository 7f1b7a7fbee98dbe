import CMosquitto
import Dispatch
import Foundation

// MARK: - The network thread

extension MQTTClient {
    /// Runs libmosquitto's loop on this client's own thread. libmosquitto's loop_forever (and so
    /// loop_start) gives up for good on TLS, authentication and DNS errors and sleeps uninterruptibly
    /// between retries; this loop retries every error with back-off and wakes at once for shutdown.
    ///
    /// With several brokers it connects to the first that answers and, when a connection is lost, tries
    /// the others in turn; the client id and the will are the same on each (the will goes with every
    /// CONNECT), and the subscriptions are renewed on each connection.
    func runNetworkLoop() {
        networkThread.store(pthread_self(), ordering: .relaxed)
        nameThread(configuration.clientID)
        var rotation = BrokerRotation(count: configuration.brokers.count)
        while !isShuttingDown {
            let index = rotation.current
            let broker = configuration.brokers[index]
            let next: BrokerRotation.Next
            state.withLock { $0.isConnecting = true }
            let code = connect(to: index)
            state.withLock { $0.isConnecting = false }
            if code == Int32(MOSQ_ERR_SUCCESS.rawValue) {
                serveConnection(toBrokerAt: index)
                if isShuttingDown { break }
                let (accepted, failingBack, takeoverWait) = takeConnectionOutcome()
                if failingBack {
                    // A second between leaving one broker and arriving at the other: a cluster has then
                    // dropped the old session before the new one starts.
                    _ = wakeUp.wait(timeout: .now() + 1)
                    rotation.failBack()
                    continue
                }
                next = accepted ? rotation.lost() : rotation.failed()
                if let takeoverWait {
                    // Taken over: the other client keeps the connection meanwhile (see `TakeoverWatch`).
                    _ = wakeUp.wait(timeout: .now() + takeoverWait)
                    continue
                }
            } else {
                state.withLock { $0.takeovers.attemptFailed() }
                noteProblem("cannot reach broker \(broker): \(Mosquitto.describe(code))")
                next = rotation.failed()
            }
            if case let .wait(round) = next {
                _ = wakeUp.wait(timeout: .now() + backoff(attempt: round))
            }
        }
        let isLeft = state.withLock { state in
            state.isThreadDone = true
            return state.isThreadLeft
        }
        if isLeft { releaseHandle() }
        threadFinished.signal()
    }

    /// Foundation does not pass a Thread's name on to Linux (the thread keeps its creator's), and Glibc's
    /// pthread_setname_np is not visible to Swift; named, a process with a thousand clients shows in top
    /// and /proc which threads are which clients'. Linux keeps 15 bytes: the end of a client id, which
    /// tells the clients of one program apart, not the start they share.
    private func nameThread(_ name: String) {
        let descriptor = open("/proc/thread-self/comm", O_WRONLY)
        guard descriptor >= 0 else { return }
        defer { close(descriptor) }
        let bytes = Array(name.utf8.suffix(15))
        _ = write(descriptor, bytes, bytes.count)
    }

    /// Whether the connection that just ended was accepted, and whether it was left to fail back.
    func takeConnectionOutcome() -> (accepted: Bool, failingBack: Bool, takeoverWait: Double?) {
        state.withLock { state in
            defer { state.wasAccepted = false; state.isFailingBack = false; state.takeoverWait = nil }
            if !state.wasAccepted { state.takeovers.attemptFailed() }
            return (state.wasAccepted, state.isFailingBack, state.takeoverWait)
        }
    }

    /// A new connection is served from now: its generation, to which a fail-back probe's answer applies.
    func beginConnection() -> Int {
        state.withLock { state in
            state.connectionGeneration += 1
            state.firstBrokerAnswers = false
            return state.connectionGeneration
        }
    }

    /// Starts a connection to the broker at `index` (its credentials are its own).
    func connect(to index: Int) -> Int32 {
        let broker = configuration.brokers[index]
        state.withLock { $0.brokerIndex = index }
        let credentials = mosquitto_username_pw_set(handle, broker.username, broker.password)
        guard credentials == Int32(MOSQ_ERR_SUCCESS.rawValue) else { return credentials }
        return mosquitto_connect_bind_v5(handle, broker.host, Int32(broker.port), Int32(configuration.keepAlive),
                                         nil, nil)
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

    /// Disconnects and joins the network thread; returns false when it left the thread in a connect
    /// instead (it frees the handle itself when that returns). Blocks: call only off the cooperative pool.
    ///
    /// The network thread itself says goodbye to the broker of a connection it serves (see `Goodbye`).
    func stopNetworkThread() -> Bool {
        let (started, connecting) = state.withLock { state in
            state.isShuttingDown = true
            return (state.isStarted, state.isConnecting)
        }
        guard started else {
            mosquitto_disconnect_v5(handle, Int32(MQTT_RC_NORMAL_DISCONNECTION.rawValue), nil)
            return true
        }
        if let shard {
            // Its thread says the DISCONNECT and lets the client go.
            shard.post(.detach(self))
            threadFinished.wait()
            return true
        }
        wakeUpPipe.signal()
        wakeUp.signal()
        if connecting {
            let isLeft = state.withLock { state in
                if !state.isThreadDone { state.isThreadLeft = true }
                return state.isThreadLeft
            }
            if isLeft { return false }
        }
        threadFinished.wait()
        return true
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
        mosquitto_subscribe_v5_callback_set(handle) { _, context, mid, count, granted, _ in
            guard let context, let granted else { return }
            let codes = Array(UnsafeBufferPointer(start: granted, count: Int(count)))
            Unmanaged<MQTTClient>.fromOpaque(context).takeUnretainedValue().didSubscribe(mid: mid, granted: codes)
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

    /// Called on the network thread. Subscribes (unless the broker kept the session); `.connected` goes
    /// out once every subscription is granted (see `didSubscribe`), so an owner that then says it is
    /// online can be reached.
    func didConnect(code: Int32, flags: Int32) {
        let broker = configuration.brokers[state.withLock { $0.brokerIndex }]
        guard code == 0 else {
            let reason = Mosquitto.reason(code, version: configuration.protocolVersion)
            noteProblem("broker \(broker) refused the connection: \(reason)")
            return
        }
        let sessionPresent = flags & 1 != 0
        let (failures, announce, movedBroker, inConflict) = state.withLock { state in
            let movedBroker = state.lastAcceptedBrokerIndex.map { $0 != state.brokerIndex } ?? false
            state.lastAcceptedBrokerIndex = state.brokerIndex
            state.isConnected = true
            state.wasAccepted = true
            state.connectedAt = .now
            state.lastProblem = nil
            state.takeovers.accepted(broker: state.brokerIndex, at: .now)
            state.pendingGrants = [:]
            state.subscriptionRetries = [:]
            state.awaitingGrants = []
            state.isAnnounced = false
            var failures: [MQTTError] = []
            if !sessionPresent {
                for (filter, qos) in state.subscriptions.sorted(by: { $0.key < $1.key }) {
                    if let failure = sendSubscribe(filter, qos: qos, state: &state) {
                        failures.append(failure)
                    } else if !state.unawaited.contains(filter) {
                        state.awaitingGrants.insert(filter)
                    }
                }
            }
            state.isAnnounced = state.awaitingGrants.isEmpty
            return (failures, state.isAnnounced, movedBroker, state.takeovers.isInConflict)
        }
        if let metrics = configuration.connectionMetrics {
            metrics.connects.increment()
            if movedBroker { metrics.failovers.increment() }
        }
        // While another client takes the connection over, the once-a-minute report says how it goes.
        logger.log(level: inConflict ? .debug : .info,
                   "connected to \(broker) as '\(configuration.clientID)' (MQTT \(configuration.protocolVersion.rawValue))")
        for failure in failures { logger.error("\(failure)") }
        if announce { continuation.yield(.connected(sessionPresent: sessionPresent)) }
    }

    /// Called on the network thread.
    func didDisconnect(code: Int32) {
        let (wasConnected, shuttingDown, failingBack, verdict) = state.withLock { state in
            defer { state.isConnected = false }
            var verdict = TakeoverWatch.Verdict.lost
            if state.isShuttingDown || state.isFailingBack {
                state.takeovers.left()
            } else if state.isConnected {
                verdict = state.takeovers.lost(at: .now, isCertain: code == Int32(MQTT_RC_SESSION_TAKEN_OVER.rawValue))
                if case let .takenOver(wait, _) = verdict { state.takeoverWait = wait }
            }
            return (state.isConnected, state.isShuttingDown, state.isFailingBack, verdict)
        }
        guard !shuttingDown else { return }
        let reason: String
        if failingBack {
            reason = "moving back to the first broker"
        } else if case let .takenOver(wait, report) = verdict {
            reason = "taken over by another client with the same client id '\(configuration.clientID)'"
            noteTakeover(wait: wait, report: report)
        } else if configuration.protocolVersion == .v5 && code >= 0x80 {
            reason = "broker disconnected us: \(Mosquitto.reason(code, version: .v5))"
        } else {
            reason = "connection lost: \(Mosquitto.describe(code))"
        }
        if wasConnected && !failingBack, case .lost = verdict { noteProblem(reason) }
        continuation.yield(.disconnected(reason: reason))
    }

    /// Called on the network thread when the broker acknowledges a QoS 1 publish.
    func didAcknowledge(mid: Int32, reason: Int32) {
        let waiter = state.withLock { state in
            state.unacknowledged.remove(mid)
            return state.pendingAcknowledgements.removeValue(forKey: mid)
        }
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
        if message.retain, let will = configuration.will, topic == will.topic, payload == will.payload {
            // Its own will, retained: a connection with this client id ended without a goodbye just before.
            state.withLock { $0.takeovers.foundWill() }
        }
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
