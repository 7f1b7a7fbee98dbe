import Dispatch
import Foundation
import MQTTTransport
import MediaNodeTesting
import Synchronization
import Testing

/// `MQTTClient.flush` writes a reply on the thread that sends it instead of waking the network thread.
@Suite("Flushing a publish from the sending thread")
struct FlushTests {
    final class Flag: Sendable {
        let value = Mutex(false)
    }

    @Test("a flushed publish goes out while the network thread is busy; flushing inside its callback or after shutdown is harmless")
    func flushWritesWithoutTheNetworkThread() async throws {
        let broker = try await MosquittoBroker()
        defer { broker.stop() }
        let url = try BrokerURL(parsing: broker.url)
        let receiver = try TestMQTTClient(brokerURL: broker.url)
        try await receiver.connect()
        try await receiver.subscribeAndSettle("flush/out/#")

        let entered = DispatchSemaphore(value: 0), release = DispatchSemaphore(value: 0)
        let isBlocked = Flag()
        let sender = try MQTTClient(configuration: MQTTConfiguration(broker: url, clientID: "flusher"))
        sender.route { [sender] message in
            switch message.topic {
            case "flush/block":
                isBlocked.value.withLock { $0 = true }
                entered.signal()
                _ = release.wait(timeout: .now() + 20)
                isBlocked.value.withLock { $0 = false }
            case "flush/echo":
                // On the network thread, inside libmosquitto's callback: flush must leave the write to it.
                try? sender.publish(topic: "flush/out/echo", payload: message.payload, qos: 1)
                sender.flush()
            default:
                return false
            }
            return true
        }
        sender.start()
        try sender.subscribe("flush/block", qos: 1)
        try sender.subscribe("flush/echo", qos: 1)
        try await Task.sleep(for: .milliseconds(300))

        try await receiver.publish("flush/echo", "inside")
        let echo = try await receiver.first { $0.topic == "flush/out/echo" }
        #expect(String(decoding: echo.payload, as: UTF8.self) == "inside")

        // Hold the network thread in a callback, then publish from here: only flush can get it out.
        try await receiver.publish("flush/block", "hold")
        #expect(await Task.detached { entered.wait(timeout: .now() + 10) }.value == .success)
        try sender.publish(topic: "flush/out/direct", payload: Array("now".utf8), qos: 1)
        sender.flush()
        let direct = try await receiver.first(timeout: .seconds(5)) { $0.topic == "flush/out/direct" }
        #expect(String(decoding: direct.payload, as: UTF8.self) == "now")
        let stillHeld = isBlocked.value.withLock { $0 }
        #expect(stillHeld, "the network thread was still held when it arrived")
        release.signal()

        await sender.shutdown()
        sender.flush()
        await receiver.disconnect()
    }
}
