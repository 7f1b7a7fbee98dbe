import Logging
import MQTTTransport
import MediaNodeTesting
import Testing
@testable import MediaNode

/// A playback command holds the retained publisher's wake-ups until its reply flushes: what is marked
/// meanwhile must still reach the broker, from the reply's flush, from the release, or, for a hold stuck
/// longer than `longestHold`, at once.
@Suite("Retained state marked during a command")
struct RetainedHoldTests {
    static func publisher() -> (RetainedPublisher, InMemoryTransport, Task<Void, Never>) {
        let transport = InMemoryTransport(broker: InMemoryBroker())
        transport.start()
        let retained = RetainedPublisher(transport: transport, logger: Logger(label: "test"))
        retained.connected(first: [])
        let loop = Task { await retained.run() }
        return (retained, transport, loop)
    }

    static func arrives(_ topic: String, on transport: InMemoryTransport, within limit: Duration) async -> Bool {
        let deadline = ContinuousClock.now + limit
        while ContinuousClock.now < deadline {
            if transport.broker.retained(topic) != nil { return true }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return false
    }

    @Test("a mark during a hold waits for it, and goes out when the hold ends without a flush")
    func releaseSendsWhatWaited() async {
        let (retained, transport, loop) = Self.publisher()
        defer { retained.finish(); loop.cancel() }
        retained.holdWakes()
        retained.publish("P/nowplaying", Array(#"{"state":"paused"}"#.utf8))
        #expect(await !Self.arrives("P/nowplaying", on: transport, within: .milliseconds(300)),
                "held: the command's reply flushes it")
        retained.releaseWakes()
        #expect(await Self.arrives("P/nowplaying", on: transport, within: .seconds(5)), "released: the loop sends it")
    }

    @Test("a hold older than its limit (a command stuck in the engine) does not hold a mark")
    func staleHoldDoesNotHold() async throws {
        let (retained, transport, loop) = Self.publisher()
        defer { retained.finish(); loop.cancel() }
        retained.holdWakes()
        try await Task.sleep(for: RetainedPublisher.longestHold + .milliseconds(100))
        retained.publish("P/queue", Array(#"{"index":0}"#.utf8))
        #expect(await Self.arrives("P/queue", on: transport, within: .seconds(5)))
        retained.releaseWakes()
    }
}
