import CMosquitto
import CMosquittoWakeUp
import Dispatch
import Foundation
import Logging
import Synchronization

/// A client over libmosquitto that knows nothing of media.
///
/// Threading: libmosquitto's network loop runs on a dedicated thread owned by this client, never on
/// Swift's cooperative pool. Inbound messages and connection changes are delivered in order on `events`
/// (or to `messageHandler`, on the network thread). `publish` and `subscribe` may be called from any thread.
public final class MQTTClient: Sendable {
    public let configuration: MQTTConfiguration
    /// Connection changes and inbound messages, in the order libmosquitto saw them.
    public let events: AsyncStream<MQTTEvent>

    let logger: Logger
    let continuation: AsyncStream<MQTTEvent>.Continuation
    let messageHandler: (@Sendable (MQTTMessage) -> Void)?
    /// Takes inbound messages on the network thread before `events` does; see `route`.
    let router = Mutex<MessageRouter?>(nil)

    /// A router in a struct, not a bare closure: a closure kept in a generic container is re-wrapped in
    /// a conversion thunk on every `inout` access, so reading it per message would nest thunks without
    /// end, and each message would take longer than the last.
    struct MessageRouter: Sendable {
        let route: @Sendable (MQTTMessage) -> Bool
    }
    let state = Mutex(State())
    /// True once the handle is destroyed. Guards `flush`, which cannot take `state`: libmosquitto may
    /// call back into this client (and so into `state`) from inside the write.
    let writeGate = Mutex(false)
    /// The network thread's pthread id, once it runs: `flush` leaves writing to it when called there.
    let networkThread = Atomic<UInt>(0)
    /// Wakes the network thread out of a reconnect back-off when shutting down.
    let wakeUp = DispatchSemaphore(value: 0)
    /// Wakes the network thread out of its wait for traffic when another thread queues a packet.
    let wakeUpPipe: WakeUpPipe
    /// The event loop's thread that serves this client, when it has no thread of its own.
    let shard: MQTTEventLoop.Shard?
    /// A write is asked of the event loop's thread and not done yet: another packet needs no request.
    let writeRequested = Atomic<Bool>(false)
    let threadFinished = DispatchSemaphore(value: 0)
    /// The libmosquitto handle: valid from init until `shutdown` destroys it.
    nonisolated(unsafe) let handle: OpaquePointer

    struct State {
        var subscriptions: [String: Int] = [:]
        var pendingAcknowledgements: [Int32: CheckedContinuation<Void, any Error>] = [:]
        /// Every QoS 1 publish not acknowledged yet, by message id: a shutdown lets them go out first.
        var unacknowledged: Set<Int32> = []
        var isConnected = false
        var isStarted = false
        var isShuttingDown = false
        var isDestroyed = false
        /// The network thread is in libmosquitto's connect, which blocks (name lookup, TCP handshake) and
        /// cannot be interrupted: a shutdown then leaves the thread to finish on its own.
        var isConnecting = false
        /// Set by a shutdown that did not wait for the network thread: the thread frees the handle at its end.
        var isThreadLeft = false
        var isThreadDone = false
        var connectedAt: ContinuousClock.Instant?
        /// Whether lost connections are being taken over by another client with the same id, and the pause
        /// that asks for.
        var takeovers = TakeoverWatch()
        /// Set when the connection just lost was taken over: seconds the loop waits before the next try.
        var takeoverWait: Double?
        /// The last connection problem logged, so a broker that stays down is logged once, not every retry.
        var lastProblem: String?
        /// The broker of the current connection (or attempt), an index into `configuration.brokers`.
        var brokerIndex = 0
        /// Whether the broker accepted the current connection (CONNACK success).
        var wasAccepted = false
        /// The broker of the last connection accepted, for counting fail-overs.
        var lastAcceptedBrokerIndex: Int?
        /// Counts connections, so a fail-back probe's answer is applied to the connection that asked.
        var connectionGeneration = 0
        var isProbingFirstBroker = false
        /// The first broker answered a probe: the loop leaves the current one for it.
        var firstBrokerAnswers = false
        /// The current connection is being closed to move back to the first broker.
        var isFailingBack = false
        /// SUBSCRIBEs awaiting their SUBACK, by message id.
        var pendingGrants: [Int32: PendingGrant] = [:]
        /// Filters subscribed when the connection came up and not granted yet: until none is left,
        /// `.connected` is held back.
        var awaitingGrants: Set<String> = []
        var isAnnounced = false
        /// Refused subscriptions and when to ask for each again (at QoS 0).
        var subscriptionRetries: [String: ContinuousClock.Instant] = [:]
        /// Filters refused since they were last granted, so each refusal is logged once.
        var refusedFilters: Set<String> = []
        /// Filters the connection is announced without: not awaited, and not asked for again once refused.
        var unawaited: Set<String> = []
    }

    /// - Parameters:
    ///   - messageHandler: when given, inbound messages go to it on the network thread instead of `events`
    ///     (for measuring the floor without any hop); connection events still go to `events`.
    ///   - eventLoop: serves the connection from one of its threads instead of one of the client's own.
    public init(configuration: MQTTConfiguration, logger: Logger = Logger(label: "medianode.mqtt"),
                messageHandler: (@Sendable (MQTTMessage) -> Void)? = nil, eventLoop: MQTTEventLoop? = nil) throws(MQTTError) {
        _ = Mosquitto.initialized
        guard !configuration.brokers.isEmpty else { throw .invalidConfiguration("no broker given") }
        // One libmosquitto handle serves every broker, and TLS, once set on it, cannot be turned off.
        guard Set(configuration.brokers.map(\.usesTLS)).count == 1 else {
            throw .invalidConfiguration("the brokers must all be mqtt:// or all mqtts://, not a mix")
        }
        wakeUpPipe = eventLoop == nil ? try WakeUpPipe() : WakeUpPipe(unused: ())
        shard = eventLoop?.shard()
        guard let handle = medianode_mosquitto_new(configuration.clientID, 1, nil) else {
            throw .library(call: "mosquitto_new", code: Int32(MOSQ_ERR_NOMEM.rawValue), message: "out of memory")
        }
        self.handle = handle
        self.configuration = configuration
        self.logger = logger
        self.messageHandler = messageHandler
        state.withLock { $0.subscriptions = configuration.subscriptions }
        (events, continuation) = AsyncStream.makeStream(of: MQTTEvent.self, bufferingPolicy: .unbounded)
        do {
            try configure()
        } catch {
            mosquitto_destroy(handle)
            throw error
        }
    }

    deinit {
        let needsDestroy = state.withLock { !$0.isDestroyed }
        if needsDestroy {
            // The owner forgot `shutdown`; stop the thread before freeing what it uses. The thread holds
            // the client, so it has ended by now.
            _ = stopNetworkThread()
            releaseHandle()
        }
        continuation.finish()
    }

    /// Starts the network thread, which connects and keeps reconnecting until `shutdown`.
    public func start() {
        let shouldStart = state.withLock { state -> Bool in
            guard !state.isStarted, !state.isShuttingDown else { return false }
            state.isStarted = true
            return true
        }
        guard shouldStart else { return }
        if let shard { return shard.post(.attach(self)) }
        let thread = Thread { [self] in runNetworkLoop() }
        thread.name = "mqtt-\(configuration.clientID)"
        thread.start()
    }

    public var isConnected: Bool { state.withLock { $0.isConnected } }

    /// Whether clients are made without libmosquitto's own wake-up socket pair: one descriptor per
    /// connection instead of three. False only if the linker bound libmosquitto to libc's socketpair.
    public static var declinesLibraryWakeUpPair: Bool { medianode_mosquitto_declines_socket_pair() == 1 }

    /// Hands every inbound message to `router` on the network thread, as it arrives; the messages it
    /// returns false for still go to `events`. A receiver that answers from memory answers without a
    /// thread hop, and one with several queues fills each in arrival order. The router must not block.
    public func route(_ router: @escaping @Sendable (MQTTMessage) -> Bool) {
        self.router.withLock { $0 = MessageRouter(route: router) }
    }

    /// Publishes a message. Returns once libmosquitto has queued it; use `publishAndWait` to wait for the
    /// broker's acknowledgement.
    public func publish(topic: String, payload: [UInt8], qos: Int = 0, retain: Bool = false,
                        properties: MQTTProperties = .init()) throws(MQTTError) {
        _ = try sendPublish(topic: topic, payload: payload, qos: qos, retain: retain, properties: properties,
                            register: nil)
        sendQueued()
    }

    /// Publishes with QoS 1 and waits until the broker acknowledges it (or the client shuts down).
    public func publishAndWait(topic: String, payload: [UInt8], retain: Bool = false,
                               properties: MQTTProperties = .init()) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            do {
                _ = try sendPublish(topic: topic, payload: payload, qos: 1, retain: retain, properties: properties,
                                    register: continuation)
                sendQueued()
            } catch {
                continuation.resume(throwing: error)
            }
        }
    }

    /// Writes what is queued now, on the calling thread, instead of leaving it to the network thread:
    /// waking that thread costs 0.1-0.2 ms when its core idles, so a reply someone waits on is flushed.
    ///
    /// Does nothing over TLS (an OpenSSL connection must not be read and written on two threads at
    /// once; plain sockets may be, and libmosquitto locks its packet queue), while disconnected (the
    /// write would report the loss again), and on the network thread itself: it writes as soon as its
    /// callback returns, and inside a callback libmosquitto holds a lock a write may need.
    public func flush() { _ = writeOnThisThread() }

    /// Writes what is queued on the calling thread where it may be (see `flush`). True when all of it went
    /// out; false where it may not be written here, or a full socket left some for the network thread.
    func writeOnThisThread() -> Bool {
        guard !configuration.broker.usesTLS, pthread_self() != networkThread.load(ordering: .relaxed),
              isConnected
        else { return false }
        return writeGate.withLock { isDestroyed in
            guard !isDestroyed else { return false }
            // A failed write closes the socket here; the network thread then sees the lost connection
            // and reconnects, as it would have after failing the write itself.
            _ = mosquitto_loop_write(handle, 1)
            return !mosquitto_want_write(handle)
        }
    }

    /// Has a packet just queued sent: written at once by the publishing thread where it may be, else (and
    /// for what a full socket left over) by the network thread. Waking that thread for every publish cost
    /// a pipe write, a wake-up and a context switch each: in a rig of a thousand nodes the shards' wake-ups
    /// were a fifth of all context switches.
    func sendQueued() {
        if !writeOnThisThread() { wakeNetwork() }
    }

    /// Subscribes now (if connected) and again after every reconnect that finds no session. A filter of
    /// `configuration.subscriptions` is already renewed on every connection, so asking for it again at
    /// the same QoS sends nothing (a second SUBSCRIBE would have the broker resend its retained messages).
    public func subscribe(_ filter: String, qos: Int = 1) throws(MQTTError) {
        try subscribe(filter, qos: qos, awaited: true)
    }

    /// Subscribes as `subscribe(_:qos:)` does; with `awaited` false, `.connected` does not wait for this
    /// filter's grant, and a broker that refuses it (at QoS 0 too) is not asked again on that connection:
    /// for what the owner can do without, so a broker's ACL that does not allow it never holds up the rest.
    public func subscribe(_ filter: String, qos: Int, awaited: Bool) throws(MQTTError) {
        let failure: MQTTError? = state.withLock { state in
            if awaited { state.unawaited.remove(filter) } else { state.unawaited.insert(filter) }
            if configuration.subscriptions[filter] == qos, state.subscriptions[filter] == qos { return nil }
            state.subscriptions[filter] = qos
            guard state.isConnected, !state.isDestroyed else { return nil }
            return sendSubscribe(filter, qos: qos, state: &state)
        }
        if let failure { throw failure }
    }

    /// Disconnects cleanly (the broker then discards the will), stops the network thread and frees
    /// libmosquitto's resources. Blocking parts run off the cooperative pool.
    ///
    /// Never waits on the network longer than the goodbye's limits (`acknowledgementLimit`, `closeLimit`):
    /// a thread stuck in a connect to a broker that does not answer is left to end on its own.
    public func shutdown() async {
        let alreadyDown = state.withLock { state -> Bool in
            defer { state.isShuttingDown = true }
            return state.isShuttingDown
        }
        guard !alreadyDown else { return }
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            DispatchQueue.global().async { [self] in
                let joined = stopNetworkThread()
                if !joined {
                    logger.notice("still connecting to the broker at shutdown: not waiting for it")
                }
                let pending = state.withLock { state in
                    state.isDestroyed = true
                    state.isConnected = false
                    defer { state.pendingAcknowledgements = [:] }
                    return state.pendingAcknowledgements
                }
                if joined { releaseHandle() }
                for waiter in pending.values { waiter.resume(throwing: MQTTError.shutDown) }
                continuation.finish()
                done.resume()
            }
        }
    }

    /// Frees libmosquitto's handle, once no thread uses it.
    func releaseHandle() {
        writeGate.withLock { $0 = true }
        mosquitto_destroy(handle)
    }

    // MARK: - Internals

    private func configure() throws(MQTTError) {
        let version: Int32 = configuration.protocolVersion == .v5 ? Int32(MQTT_PROTOCOL_V5) : Int32(MQTT_PROTOCOL_V311)
        try MQTTError.check(mosquitto_int_option(handle, MOSQ_OPT_PROTOCOL_VERSION, version),
                            "MOSQ_OPT_PROTOCOL_VERSION")
        // Without TCP_NODELAY a QoS 1 round trip waits on Nagle's algorithm: ~40 ms instead of ~0.1 ms.
        try MQTTError.check(mosquitto_int_option(handle, MOSQ_OPT_TCP_NODELAY, 1), "MOSQ_OPT_TCP_NODELAY")
        // Publishes come from other threads; libmosquitto must queue them for the loop instead of writing
        // inline (the loop is woken through `wakeUpPipe`).
        try MQTTError.check(mosquitto_threaded_set(handle, true), "mosquitto_threaded_set")
        if configuration.broker.usesTLS {
            let tls = configuration.tls
            let caDirectory = tls.caFile == nil ? (tls.caDirectory ?? "/etc/ssl/certs") : tls.caDirectory
            try MQTTError.check(
                mosquitto_tls_set(handle, tls.caFile, caDirectory, tls.certificateFile, tls.keyFile, nil),
                "mosquitto_tls_set")
        }
        if let will = configuration.will {
            try MQTTError.check(
                mosquitto_will_set_v5(handle, will.topic, Int32(will.payload.count), will.payload,
                                      Int32(will.qos), will.retain, nil),
                "mosquitto_will_set")
        }
        installCallbacks()
    }

    private func sendPublish(topic: String, payload: [UInt8], qos: Int, retain: Bool, properties: MQTTProperties,
                             register waiter: CheckedContinuation<Void, any Error>?) throws(MQTTError) -> Int32 {
        // Holding the lock across the call keeps the acknowledgement from racing ahead of registration
        // and keeps the handle alive against a concurrent shutdown.
        let result: Result<Int32, MQTTError> = state.withLock { state in
            guard !state.isDestroyed else { return .failure(.shutDown) }
            var properties = properties
            if configuration.protocolVersion != .v5 { properties = .init() }
            var list: OpaquePointer? = nil
            defer { mosquitto_property_free_all(&list) }
            if let responseTopic = properties.responseTopic {
                mosquitto_property_add_string(&list, Int32(MQTT_PROP_RESPONSE_TOPIC.rawValue), responseTopic)
            }
            if let data = properties.correlationData {
                mosquitto_property_add_binary(&list, Int32(MQTT_PROP_CORRELATION_DATA.rawValue), data,
                                              UInt16(min(data.count, Int(UInt16.max))))
            }
            if let expiry = properties.messageExpiry {
                mosquitto_property_add_int32(&list, Int32(MQTT_PROP_MESSAGE_EXPIRY_INTERVAL.rawValue), expiry)
            }
            if let contentType = properties.contentType {
                mosquitto_property_add_string(&list, Int32(MQTT_PROP_CONTENT_TYPE.rawValue), contentType)
            }
            var mid: Int32 = 0
            let code = payload.withUnsafeBytes { bytes in
                mosquitto_publish_v5(handle, &mid, topic, Int32(bytes.count), bytes.baseAddress, Int32(qos), retain,
                                     list)
            }
            guard code == Int32(MOSQ_ERR_SUCCESS.rawValue) else {
                return .failure(.library(call: "mosquitto_publish", code: code, message: Mosquitto.describe(code)))
            }
            if let waiter { state.pendingAcknowledgements[mid] = waiter }
            if qos > 0 { state.unacknowledged.insert(mid) }
            return .success(mid)
        }
        return try result.get()
    }
}
