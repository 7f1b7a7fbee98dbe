import Foundation
import MQTTTransport
import MediaNodeTesting
import Synchronization
import Testing

/// The MQTT client hands every inbound message to the node's router on its network thread; that must
/// cost the same for the last of many messages as for the first, or a long-running node slows down.
@Suite("Routing inbound messages on the network thread")
struct MessageRoutingTests {
    /// Arrival times of routed messages, in nanoseconds since the first.
    final class Arrivals: Sendable {
        let times = Mutex<[UInt64]>([])
        let all = Mutex<CheckedContinuation<Void, Never>?>(nil)
        let expected: Int
        init(expected: Int) { self.expected = expected }

        func arrived() {
            let now = DispatchTime.now().uptimeNanoseconds
            let done = times.withLock { times -> Bool in
                times.append(now)
                return times.count == expected
            }
            if done { all.withLock { $0.take() }?.resume() }
        }
    }

    @Test("the router takes as long for the 30,000th message as for the first thousands")
    func routingCostStaysFlat() async throws {
        let broker = try await MosquittoBroker()
        defer { broker.stop() }
        let url = try BrokerURL(parsing: broker.url)
        let count = 30_000, batch = 5_000
        let arrivals = Arrivals(expected: count)
        let receiver = try MQTTClient(configuration: MQTTConfiguration(broker: url, clientID: "routed"))
        receiver.route { message in
            guard message.topic == "load/x" else { return false }
            arrivals.arrived()
            return true
        }
        receiver.start()
        try receiver.subscribe("load/#", qos: 0)
        let sender = try TestMQTTClient(brokerURL: broker.url)
        try await sender.connect()
        try await Task.sleep(for: .milliseconds(300))
        await withCheckedContinuation { continuation in
            arrivals.all.withLock { $0 = continuation }
            Task {
                // QoS 0 as fast as the broker takes them: the receiver's loop is the bottleneck.
                for _ in 0..<count { try? await sender.publish("load/x", "{}", qos: 0) }
            }
        }
        let times = arrivals.times.withLock { $0 }
        #expect(times.count == count)
        let first = Double(times[batch - 1] - times[0]), last = Double(times[count - 1] - times[count - batch])
        // Nested thunks made the last batch ten to a hundred times slower; noise stays well inside 4x.
        #expect(last < 4 * first + 200_000_000, "first \(batch): \(first / 1e6) ms, last \(batch): \(last / 1e6) ms")
        await sender.disconnect()
        await receiver.shutdown()
    }
}
