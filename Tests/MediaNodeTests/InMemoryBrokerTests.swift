import MQTTTransport
import MediaNodeTesting
import Testing

/// The in-memory broker must route as mosquitto does, or node tests on it would prove nothing.
@Suite("The in-memory broker routes as MQTT does")
struct InMemoryBrokerTests {
    @Test("topic filters: + is one level, a final # is the level and below, wildcards skip $ topics")
    func filters() {
        let cases: [(String, String, Bool)] = [
            ("a/b", "a/b", true), ("a/b", "a/c", false), ("a/+", "a/b", true), ("a/+", "a/b/c", false),
            ("a/+/c", "a/b/c", true), ("a/#", "a", true), ("a/#", "a/b/c", true), ("#", "a/b", true),
            ("+/+", "a/b", true), ("+", "a/b", false), ("a/b/#", "a/bc", false), ("#", "$SYS/x", false),
            ("+/x", "$SYS/x", false), ("$SYS/#", "$SYS/x", true), ("a//b", "a//b", true), ("a/+/b", "a//b", true),
        ]
        for (filter, topic, expected) in cases {
            #expect(InMemoryBroker.matches(filter: filter, topic: topic) == expected, "\(filter) vs \(topic)")
        }
    }

    @Test("a message reaches each matching subscriber once, retained ones reach later subscribers, empty clears")
    func routing() async throws {
        let broker = InMemoryBroker()
        let sender = InMemoryTransport(broker: broker)
        let early = InMemoryTransport(broker: broker)
        sender.start()
        early.start()
        try early.subscribe("n/#", qos: 1)
        try early.subscribe("n/+", qos: 1)
        try sender.publish(topic: "n/state", payload: Array("on".utf8), qos: 1, retain: true, properties: .init())
        try sender.publish(topic: "other", payload: Array("x".utf8), qos: 1, retain: false, properties: .init())
        _ = try await early.first { $0.topic == "n/state" }
        #expect(early.received.map(\.topic) == ["n/state"])
        #expect(early.received.first?.retain == false)

        let late = InMemoryTransport(broker: broker)
        late.start()
        try late.subscribe("n/#", qos: 1)
        let replayed = try await late.first { $0.topic == "n/state" }
        #expect(replayed.retain && String(decoding: replayed.payload, as: UTF8.self) == "on")

        try sender.publish(topic: "n/state", payload: [], qos: 1, retain: true, properties: .init())
        #expect(broker.retained("n/state") == nil)
        #expect(sender.published.count == 3)
        for client in [sender, early, late] { await client.shutdown() }
    }
}
