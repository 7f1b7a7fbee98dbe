import Logging
import MQTTTransport
import Synchronization

/// Publishes the node's retained state: each topic only when its payload changed, all of it again
/// after every reconnect (the broker may have restarted without persistence). While disconnected it
/// only records, so nothing is queued twice.
final class RetainedPublisher: Sendable {
    private let transport: any MessageTransport
    private let logger: Logger
    private let state = Mutex(State())
    /// Remembers the topics `remembers` selects across restarts, when the node has a memory for them.
    private let book: RetainedTopicBook?
    private let remembers: @Sendable (String) -> Bool

    private struct State {
        var published: [String: [UInt8]] = [:]
        var isConnected = false
        /// Leftovers of an earlier run to clear once connected.
        var pendingClears: Set<String> = []
    }

    init(transport: any MessageTransport, logger: Logger, book: RetainedTopicBook? = nil,
         remembers: @escaping @Sendable (String) -> Bool = { _ in false }) {
        self.transport = transport
        self.logger = logger
        self.book = book
        self.remembers = remembers
    }

    /// Publishes `payload` retained with QoS 1 unless the topic already holds exactly these bytes.
    /// Returns whether a message went out.
    @discardableResult
    func publish(_ topic: String, _ payload: [UInt8]) -> Bool {
        // Sent under the lock, as everything here: otherwise a publish that saw the connection could
        // overtake `connected`'s status and capabilities (S19), or an older payload of the same topic.
        let (changed, isNew) = state.withLock { state in
            guard state.published[topic] != payload else { return (false, false) }
            let isNew = state.published.updateValue(payload, forKey: topic) == nil
            state.pendingClears.remove(topic)
            if state.isConnected { send(topic, payload) }
            return (true, isNew)
        }
        if isNew && remembers(topic) { book?.published(topic) }
        return changed
    }

    /// Clears a retained topic that no longer applies (an empty retained message).
    func clear(_ topic: String) {
        let existed = state.withLock { state in
            let existed = state.published.removeValue(forKey: topic) != nil
            if existed && state.isConnected { send(topic, []) }
            return existed
        }
        if existed && remembers(topic) { book?.cleared(topic) }
    }

    /// Clears topics an earlier run left retained, except those published again since; while
    /// disconnected they wait for the next `connected`. Returns the topics it clears.
    @discardableResult
    func clearLeftovers(_ topics: Set<String>) -> Set<String> {
        let cleared = state.withLock { state in
            let leftovers = topics.filter { state.published[$0] == nil }
            // Sent under the lock: a publish of the same topic cannot slip in between check and clear.
            if state.isConnected {
                for topic in leftovers { send(topic, []) }
            } else {
                state.pendingClears.formUnion(leftovers)
            }
            return leftovers
        }
        for topic in cleared where remembers(topic) { book?.cleared(topic) }
        return cleared
    }

    /// Marks the transport down: changes are recorded and sent on the next `connected`.
    func disconnected() {
        state.withLock { $0.isConnected = false }
    }

    /// Sends every retained topic, e.g. after a (re)connect. `first` go out before the rest, in order
    /// (S19: capabilities before the content tree).
    func connected(first: [String]) {
        state.withLock { state in
            state.isConnected = true
            for topic in first { if let payload = state.published[topic] { send(topic, payload) } }
            for (topic, payload) in state.published.sorted(by: { $0.key < $1.key }) where !first.contains(topic) {
                send(topic, payload)
            }
            for topic in state.pendingClears.sorted() where state.published[topic] == nil { send(topic, []) }
            state.pendingClears = []
        }
    }

    func current(_ topic: String) -> [UInt8]? { state.withLock { $0.published[topic] } }

    private func send(_ topic: String, _ payload: [UInt8]) {
        do {
            try transport.publish(topic: topic, payload: payload, qos: 1, retain: true,
                                  properties: MQTTProperties(contentType: Self.contentType(of: payload)))
        } catch {
            // Kept in `published`, so the next reconnect sends it.
            logger.debug("retained \(topic) not sent now (\(error)); it goes out on reconnect")
        }
    }

    static func contentType(of payload: [UInt8]) -> String? {
        guard let first = payload.first else { return nil }
        if first == UInt8(ascii: "{") || first == UInt8(ascii: "[") { return "application/json" }
        if payload.starts(with: [0xFF, 0xD8, 0xFF]) { return "image/jpeg" }
        if payload.starts(with: [0x89, 0x50, 0x4E, 0x47]) { return "image/png" }
        return nil
    }
}
