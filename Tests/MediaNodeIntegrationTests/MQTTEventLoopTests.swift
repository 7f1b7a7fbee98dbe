import Foundation
import MQTTTransport
import MediaNodeTesting
import Synchronization
import Testing

/// `MQTTEventLoop`, as the fleet rig uses it: many clients served by one thread, through a real mosquitto.
@Suite("Many MQTT clients on one event-loop thread, through a real broker", .serialized)
struct MQTTEventLoopTests {
    static let clients = 40

    /// Each client subscribes to its own topic and counts what arrives there.
    final class Inbox: Sendable {
        let counts = Mutex<[Int: Int]>([:])
        func add(_ index: Int) { counts.withLock { $0[index, default: 0] += 1 } }
        func count(_ index: Int) -> Int { counts.withLock { $0[index] ?? 0 } }
    }

    func waitUntil(_ limit: Duration, _ condition: () -> Bool) async throws -> Bool {
        let deadline = ContinuousClock.now + limit
        while ContinuousClock.now < deadline {
            if condition() { return true }
            try await Task.sleep(for: .milliseconds(20))
        }
        return condition()
    }

    @Test("A client costs one descriptor, its socket: libmosquitto's wake-up pair, which only its own loop reads, is not opened")
    func noLibraryWakeUpPair() {
        #expect(MQTTClient.declinesLibraryWakeUpPair)
    }

    @Test("40 clients on one thread connect, each gets what is sent to it, and all reconnect and resubscribe after the broker is killed and restarted")
    func clientsOnOneThread() async throws {
        let broker = try await MosquittoBroker()
        defer { broker.stop() }
        let loop = try MQTTEventLoop(threads: 1)
        defer { loop.shutdown() }
        let url = try BrokerURL(parsing: broker.url)
        let inbox = Inbox()
        var clients: [MQTTClient] = []
        for index in 0..<Self.clients {
            let configuration = MQTTConfiguration(
                brokers: [url], clientID: "loop-test-\(index)", reconnectDelay: (0, 1),
                subscriptions: ["loop/\(index)": 1])
            let client = try MQTTClient(configuration: configuration, messageHandler: { _ in inbox.add(index) }, eventLoop: loop)
            client.start()
            clients.append(client)
        }
        #expect(try await waitUntil(.seconds(20)) { clients.allSatisfy(\.isConnected) }, "not every client connected")

        // Each client publishes to the next one's topic, from this (foreign) thread: the loop thread writes it.
        func exchange(round: Int) async throws {
            try await Task.sleep(for: .milliseconds(300))
            for (index, client) in clients.enumerated() {
                try client.publish(topic: "loop/\((index + 1) % Self.clients)", payload: Array("hello".utf8), qos: 1)
            }
            let arrived = try await waitUntil(.seconds(10)) { (0..<Self.clients).allSatisfy { inbox.count($0) >= round } }
            #expect(arrived, "round \(round): \((0..<Self.clients).filter { inbox.count($0) < round }.count) clients got nothing")
        }
        try await exchange(round: 1)

        await broker.kill()
        #expect(try await waitUntil(.seconds(10)) { clients.allSatisfy { !$0.isConnected } }, "a client missed the broker's death")
        try await broker.start()
        #expect(try await waitUntil(.seconds(20)) { clients.allSatisfy(\.isConnected) }, "not every client came back")
        // The broker kept no session (no persistence): the subscriptions are made again on the new connection.
        try await exchange(round: 2)

        for client in clients { await client.shutdown() }
        #expect(clients.allSatisfy { !$0.isConnected })
    }
}
