import MQTTTransport
import Synchronization

/// MQTT's routing in memory, for tests of the node without a broker process: what one client publishes
/// goes to every connected client with a matching subscription, once per client; retained messages are
/// kept per topic (an empty retained payload clears the topic, as in MQTT) and sent to each new matching
/// subscription. QoS, sessions and the last will are left out: a test that needs them uses mosquitto.
public final class InMemoryBroker: Sendable {
    private struct State {
        var retained: [String: MQTTMessage] = [:]
        var connected: [ObjectIdentifier: InMemoryTransport] = [:]
        var filters: [ObjectIdentifier: [String]] = [:]
    }

    private let state = Mutex(State())

    public init() {}

    /// The retained message on `topic`, if any.
    public func retained(_ topic: String) -> MQTTMessage? { state.withLock { $0.retained[topic] } }

    /// Every topic holding a retained message.
    public var retainedTopics: Set<String> { state.withLock { Set($0.retained.keys) } }

    /// Whether `topic` matches the subscription `filter`: `+` is one level, a final `#` is that level and
    /// everything below (the parent included), and a wildcard at the start never matches a `$` topic.
    public static func matches(filter: String, topic: String) -> Bool {
        if topic.hasPrefix("$") && (filter.hasPrefix("+") || filter.hasPrefix("#")) { return false }
        let filterLevels = filter.split(separator: "/", omittingEmptySubsequences: false)
        let topicLevels = topic.split(separator: "/", omittingEmptySubsequences: false)
        for (index, level) in filterLevels.enumerated() {
            if level == "#" { return index == filterLevels.count - 1 }
            guard index < topicLevels.count else { return false }
            if level != "+" && level != topicLevels[index] { return false }
        }
        return filterLevels.count == topicLevels.count
    }

    // MARK: - Called by the transports

    func connect(_ client: InMemoryTransport) {
        state.withLock { $0.connected[ObjectIdentifier(client)] = client }
    }

    func disconnect(_ client: InMemoryTransport) {
        state.withLock { state in
            state.connected[ObjectIdentifier(client)] = nil
            state.filters[ObjectIdentifier(client)] = nil
        }
    }

    /// Records the subscription and returns the retained messages it matches, to be delivered to the client.
    func subscribe(_ client: InMemoryTransport, _ filter: String) -> [MQTTMessage] {
        state.withLock { state in
            state.filters[ObjectIdentifier(client), default: []].append(filter)
            return state.retained.values.filter { Self.matches(filter: filter, topic: $0.topic) }
                .sorted { $0.topic < $1.topic }
        }
    }

    /// Routes a message; each receiver gets it on its own delivery queue, in the order published.
    func publish(_ message: MQTTMessage) {
        let receivers = state.withLock { state -> [InMemoryTransport] in
            if message.retain {
                state.retained[message.topic] = message.payload.isEmpty ? nil : message
            }
            return state.connected.compactMap { id, client in
                let filters = state.filters[id] ?? []
                return filters.contains { Self.matches(filter: $0, topic: message.topic) } ? client : nil
            }
        }
        // A live delivery carries retain false, as a broker sends it to existing subscribers.
        var live = message
        live.retain = false
        for receiver in receivers { receiver.deliver(live) }
    }
}
