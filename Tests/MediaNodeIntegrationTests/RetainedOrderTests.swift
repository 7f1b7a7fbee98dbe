import Dispatch
import MQTTTransport
import MediaJSON
import MediaNode
import MediaNodeTesting
import Testing

/// S19 after a connect: the node sends its status and capabilities before anything else, even when
/// another part of the node publishes at that very moment.
///
/// On the in-memory transport: the interleaving it needs (a publish from another task while the node is in
/// the middle of re-sending its state) cannot be produced on demand through a real broker.
/// The start-order test of `NodeProcessTests` checks the same order against mosquitto, as timing allows.
@Suite("Retained state after a connect")
struct RetainedOrderTests {
    @Test("a tree change racing the connect goes out after status and commands, never between them")
    func treeChangeDuringConnect() async throws {
        let transport = InMemoryTransport(broker: InMemoryBroker(), connectsOnStart: false)
        let configuration = NodeConfiguration(nodeID: "race", databasePath: "")
        let topics = configuration.topics
        let node = Node(configuration: configuration, transport: transport, catalog: InMemoryContentCatalog())
        let run = Task { await node.run() }
        await node.waitUntilStarted()
        #expect(transport.published.isEmpty, "nothing goes out before the connect")

        // While the node sends P/status, the tree changes on another task. Whatever that task publishes
        // must wait until status and capabilities are out; the hook gives it half a second to jump ahead.
        transport.whenPublishing(topics.status) {
            let published = DispatchSemaphore(value: 0)
            Task {
                await node.setEmptyRootReason(.offline)
                published.signal()
            }
            _ = published.wait(timeout: .now() + 0.5)
        }
        transport.connect()

        let deadline = ContinuousClock.now + .seconds(10)
        func isOfflineRoot(_ message: MQTTMessage) -> Bool {
            message.topic == topics.contentTree && String(decoding: message.payload, as: UTF8.self).contains("offline")
        }
        while !transport.published.contains(where: isOfflineRoot),
              ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(10))
        }
        let sent = transport.published.map(\.topic)
        let status = try #require(sent.firstIndex(of: topics.status), "sent: \(sent)")
        let commands = try #require(sent.firstIndex(of: topics.commands), "sent: \(sent)")
        let offlineRoot = try #require(
            transport.published.firstIndex(where: isOfflineRoot),
            "the tree change was published: \(sent)")
        #expect(status == 0 && status < commands && commands < offlineRoot, "sent: \(sent)")

        await node.shutdown()
        run.cancel()
        _ = await run.value
    }
}
