import Foundation
import MQTTTransport

/// A plain MQTT client for tests: records every message it receives and lets a test wait for one.
public actor TestMQTTClient {
    public let client: MQTTClient
    public private(set) var received: [MQTTMessage] = []
    private var waiters: [(id: UUID, matches: @Sendable (MQTTMessage) -> Bool, continuation: CheckedContinuation<MQTTMessage?, Never>)] = []
    private var connectedWaiters: [(id: UUID, continuation: CheckedContinuation<Bool, Never>)] = []
    private var isConnected = false
    private var pump: Task<Void, Never>?

    public init(brokerURL: String, clientID: String = "test-\(UUID().uuidString.prefix(8))",
                version: MQTTProtocolVersion = .v5, tls: MQTTTLSConfiguration = .init()) throws {
        let configuration = MQTTConfiguration(
            broker: try BrokerURL(parsing: brokerURL), clientID: clientID, protocolVersion: version, tls: tls,
            reconnectDelay: (0, 1))
        client = try MQTTClient(configuration: configuration)
    }

    /// Connects and waits for the broker's CONNACK.
    public func connect(timeout: Duration = .seconds(10)) async throws {
        let events = client.events
        pump = Task { [weak self] in
            for await event in events {
                await self?.handle(event)
            }
        }
        client.start()
        try await waitUntilConnected(timeout: timeout)
    }

    /// Waits until the client is connected (again), e.g. after a broker restart.
    public func waitUntilConnected(timeout: Duration = .seconds(10)) async throws {
        if isConnected { return }
        let id = UUID()
        let connected: Bool = await withCheckedContinuation { continuation in
            connectedWaiters.append((id, continuation))
            Task {
                try? await Task.sleep(for: timeout)
                self.expireConnectWaiter(id)
            }
        }
        guard connected else { throw TestTimeout(what: "the connection to the broker", after: timeout) }
    }

    private func expireConnectWaiter(_ id: UUID) {
        guard let index = connectedWaiters.firstIndex(where: { $0.id == id }) else { return }
        connectedWaiters.remove(at: index).continuation.resume(returning: false)
    }

    public func subscribe(_ filter: String, qos: Int = 1) throws {
        try client.subscribe(filter, qos: qos)
    }

    /// Subscribes and waits until the broker has certainly registered it, by round-tripping a probe.
    public func subscribeAndSettle(_ filter: String, qos: Int = 1) async throws {
        try client.subscribe(filter, qos: qos)
        let probe = "medianode-test-probe/\(UUID().uuidString)"
        try client.subscribe(probe, qos: 1)
        try await client.publishAndWait(topic: probe, payload: [])
        _ = try await first(timeout: .seconds(10)) { $0.topic == probe }
    }

    public func publish(_ topic: String, _ payload: String, qos: Int = 1, retain: Bool = false,
                        properties: MQTTProperties = .init()) throws {
        try client.publish(topic: topic, payload: Array(payload.utf8), qos: qos, retain: retain, properties: properties)
    }

    public func publish(_ topic: String, bytes: [UInt8], qos: Int = 1, properties: MQTTProperties = .init()) throws {
        try client.publish(topic: topic, payload: bytes, qos: qos, properties: properties)
    }

    /// The first message already received, or arriving within `timeout`, that matches.
    public func first(timeout: Duration = .seconds(10), where matches: @escaping @Sendable (MQTTMessage) -> Bool)
        async throws -> MQTTMessage {
        if let found = received.first(where: matches) { return found }
        return try await waitForNew(timeout: timeout, matches)
    }

    /// The next message on `topic` that arrives after this call.
    public func next(on topic: String, timeout: Duration = .seconds(10),
                     where matches: @escaping @Sendable (MQTTMessage) -> Bool = { _ in true }) async throws -> MQTTMessage {
        try await waitForNew(timeout: timeout) { $0.topic == topic && matches($0) }
    }

    /// The latest message on `topic` when it matches (nil: nothing received there), else the next one that
    /// does. Checked and awaited in one step on this actor, so a message arriving in between is not missed.
    public func current(on topic: String, timeout: Duration = .seconds(10),
                        where matches: @escaping @Sendable (MQTTMessage?) -> Bool) async throws -> MQTTMessage? {
        let latest = received.last { $0.topic == topic }
        if matches(latest) { return latest }
        return try await waitForNew(timeout: timeout) { $0.topic == topic && matches($0) }
    }

    /// The latest message received on `topic`, if any.
    public func latest(on topic: String) -> MQTTMessage? { received.last { $0.topic == topic } }

    public func messages(on topic: String) -> [MQTTMessage] { received.filter { $0.topic == topic } }

    public func clear() { received.removeAll() }

    public func disconnect() async {
        await client.shutdown()
        pump?.cancel()
    }

    // MARK: - Internals

    private func waitForNew(timeout: Duration, _ matches: @escaping @Sendable (MQTTMessage) -> Bool) async throws -> MQTTMessage {
        let id = UUID()
        let result: MQTTMessage? = await withCheckedContinuation { continuation in
            waiters.append((id, matches, continuation))
            Task {
                try? await Task.sleep(for: timeout)
                self.expire(id)
            }
        }
        guard let result else { throw TestTimeout(what: "a matching message", after: timeout) }
        return result
    }

    private func expire(_ id: UUID) {
        guard let index = waiters.firstIndex(where: { $0.id == id }) else { return }
        waiters.remove(at: index).continuation.resume(returning: nil)
    }

    private func handle(_ event: MQTTEvent) {
        switch event {
        case .connected:
            isConnected = true
            for waiter in connectedWaiters { waiter.continuation.resume(returning: true) }
            connectedWaiters.removeAll()
        case .disconnected:
            isConnected = false
        case let .message(message):
            received.append(message)
            var remaining: [(id: UUID, matches: @Sendable (MQTTMessage) -> Bool, continuation: CheckedContinuation<MQTTMessage?, Never>)] = []
            for waiter in waiters {
                if waiter.matches(message) {
                    waiter.continuation.resume(returning: message)
                } else {
                    remaining.append(waiter)
                }
            }
            waiters = remaining
        }
    }
}

public struct TestTimeout: Error, CustomStringConvertible {
    public var what: String
    public var after: Duration
    public var description: String { "timed out after \(after) waiting for \(what)" }

    package init(what: String, after: Duration) {
        self.what = what
        self.after = after
    }
}

/// Runs `body`, failing with `TestTimeout` if it takes longer than `timeout`; `body` must honour cancellation.
public func withTimeout<T: Sendable>(_ timeout: Duration, _ what: String,
                                     _ body: @escaping @Sendable () async throws -> T) async throws -> T {
    try await withThrowingTaskGroup(of: T.self) { group in
        group.addTask { try await body() }
        group.addTask {
            try await Task.sleep(for: timeout)
            throw TestTimeout(what: what, after: timeout)
        }
        let result = try await group.next()!
        group.cancelAll()
        return result
    }
}
