import Dispatch
import MQTTTransport
import MediaNode
import Synchronization

/// The `MessageTransport` twin: a client of an `InMemoryBroker`. The node runs on one; a test talks to it
/// through another on the same broker, or reads what the node published and what stays retained.
///
/// Messages reach the router, or `events` when the router declines them, on a serial queue of the
/// transport's own, in the order published, as libmosquitto's thread hands them over.
public final class InMemoryTransport: MessageTransport, Sendable {
    public let broker: InMemoryBroker
    public let protocolVersion: MQTTProtocolVersion
    public let events: AsyncStream<MQTTEvent>
    private let continuation: AsyncStream<MQTTEvent>.Continuation
    private let connectsOnStart: Bool
    private let queue = DispatchQueue(label: "in-memory-transport")
    private let state = Mutex(State())

    private struct State {
        var router: (@Sendable (MQTTMessage) -> Bool)?
        var isConnected = false
        var isShutDown = false
        var published: [MQTTMessage] = []
        var received: [MQTTMessage] = []
        var hooks: [(topic: String, body: @Sendable () -> Void)] = []
        /// Renewed at each connect, as the MQTT client renews its subscriptions on a clean session.
        var filters: [String] = []
    }

    /// - Parameter connectsOnStart: false leaves the connection to the test (`connect()`), to see what
    ///   happens before and while it comes up.
    public init(broker: InMemoryBroker, protocolVersion: MQTTProtocolVersion = .v5, connectsOnStart: Bool = true) {
        self.broker = broker
        self.protocolVersion = protocolVersion
        self.connectsOnStart = connectsOnStart
        (events, continuation) = AsyncStream.makeStream(of: MQTTEvent.self, bufferingPolicy: .unbounded)
    }

    // MARK: - What a test reads and does

    /// Everything this client published, in order, connected or not.
    public var published: [MQTTMessage] { state.withLock { $0.published } }

    /// Everything delivered to this client, in order, whether the router took it or not.
    public var received: [MQTTMessage] { state.withLock { $0.received } }

    /// Connects to the broker, renews the subscriptions, and says so on `events`.
    public func connect() {
        broker.connect(self)
        let filters = state.withLock { state in
            state.isConnected = true
            return state.filters
        }
        for filter in filters {
            for message in broker.subscribe(self, filter) { deliver(message) }
        }
        continuation.yield(.connected(sessionPresent: false))
    }

    /// Drops the connection and says so on `events`; the broker forgets this client's subscriptions until
    /// `connect` renews them.
    public func disconnect(reason: String = "test") {
        broker.disconnect(self)
        state.withLock { $0.isConnected = false }
        continuation.yield(.disconnected(reason: reason))
    }

    /// Runs `body` inside the next publish on `topic`, before the message reaches the broker: for a test
    /// that needs something to happen at that very moment.
    public func whenPublishing(_ topic: String, _ body: @escaping @Sendable () -> Void) {
        state.withLock { $0.hooks.append((topic, body)) }
    }

    /// The first message delivered to this client that `matches`, waiting up to `timeout` for it.
    public func first(
        timeout: Duration = .seconds(10), where matches: @escaping @Sendable (MQTTMessage) -> Bool
    ) async throws -> MQTTMessage {
        let deadline = ContinuousClock.now + timeout
        while true {
            if let found = state.withLock({ $0.received.first(where: matches) }) { return found }
            guard ContinuousClock.now < deadline else { throw TestTimeout(what: "a matching message", after: timeout) }
            try await Task.sleep(for: .milliseconds(5))
        }
    }

    // MARK: - MessageTransport

    public func start() {
        if connectsOnStart { connect() }
    }

    public func route(_ router: @escaping @Sendable (MQTTMessage) -> Bool) {
        state.withLock { $0.router = router }
    }

    /// Recorded whether connected or not, so a test sees what the node tried to send before a connect;
    /// only what is sent while connected reaches the broker.
    public func publish(
        topic: String, payload: [UInt8], qos: Int, retain: Bool, properties: MQTTProperties
    ) throws(MQTTError) {
        let message = MQTTMessage(topic: topic, payload: payload, qos: qos, retain: retain, properties: properties)
        let (hook, isConnected) = try state.withLock { state throws(MQTTError) -> ((@Sendable () -> Void)?, Bool) in
            guard !state.isShutDown else { throw .shutDown }
            state.published.append(message)
            let index = state.hooks.firstIndex { $0.topic == topic }
            return (index.map { state.hooks.remove(at: $0).body }, state.isConnected)
        }
        hook?()
        if isConnected { broker.publish(message) }
    }

    public func publishAndWait(topic: String, payload: [UInt8], retain: Bool, properties: MQTTProperties) async throws {
        try publish(topic: topic, payload: payload, qos: 1, retain: retain, properties: properties)
    }

    public func subscribe(_ filter: String, qos: Int) throws(MQTTError) {
        let isConnected = try state.withLock { state throws(MQTTError) -> Bool in
            guard !state.isShutDown else { throw .shutDown }
            state.filters.append(filter)
            return state.isConnected
        }
        guard isConnected else { return }
        for message in broker.subscribe(self, filter) { deliver(message) }
    }

    public func flush() {}

    public func shutdown() async {
        let wasShutDown = state.withLock { state in
            defer { state.isShutDown = true }
            return state.isShutDown
        }
        guard !wasShutDown else { return }
        broker.disconnect(self)
        state.withLock { $0.isConnected = false }
        continuation.finish()
    }

    // MARK: - From the broker

    func deliver(_ message: MQTTMessage) {
        queue.async { [self] in
            let router = state.withLock { state in
                state.received.append(message)
                return state.router
            }
            if let router, router(message) { return }
            continuation.yield(.message(message))
        }
    }
}
