import CatalogStore
import ContentTree
import Foundation
import MQTTTransport
import MediaJSON
import MediaNode
import MediaNodeTesting
import Testing

/// The retained tree across a restart: the broker keeps what an earlier run published until it is cleared.
@Suite("Content tree across restarts", .serialized)
struct ContentRestartTests {
    /// Every retained node a fresh subscriber to the tree receives, by topic, once the upper levels are in.
    static func retainedTree(_ rig: ContentRig) async throws -> [String: [UInt8]] {
        let fresh = try TestMQTTClient(brokerURL: rig.broker.url)
        try await fresh.connect()
        try await fresh.subscribe(rig.topics.contentTree, qos: 1)
        // Retained messages come before anything published after this marker.
        try await fresh.subscribeAndSettle("\(rig.topics.contentTree)/#")
        var nodes: [String: [UInt8]] = [:]
        for message in await fresh.received where message.retain && message.topic.hasPrefix(rig.topics.contentTree) {
            nodes[message.topic] = message.payload
        }
        await fresh.disconnect()
        return nodes
    }

    @Test("deeper nodes browsed before a restart are cleared at start; a fresh subscriber sees only live nodes")
    func staleNodesAreCleared() async throws {
        let broker = try await MosquittoBroker()
        let directory = try AudioFixtures.makeTemporaryDirectory("restart")
        _ = try await ContentRig.makeLibrary(in: directory)
        let first = try await ContentRig.start(broker: broker, directory: directory)
        for (id, path) in [("a", "[0,1,0]"), ("b", "[0,1,1]")] {
            #expect(try await first.request("browse", #"{"id":"\#(id)","indexPath":\#(path)}"#, id: id)["status"] == "success")
        }
        _ = try await first.waitForNode([0, 1, 1]) { $0 != nil }
        let before = try await Self.retainedTree(first)
        #expect(before[first.topics.contentTree([0, 1, 0])] != nil && before[first.topics.contentTree([0, 1, 1])] != nil)
        await first.stop(stopBroker: false, removeFiles: false)

        let second = try await ContentRig.start(broker: broker, directory: directory)
        // The old nodes were retained when the second run's client subscribed; now they are cleared.
        for path: [Int] in [[0, 1, 0], [0, 1, 1]] { _ = try await second.waitForNode(path) { $0 == nil } }
        let after = try await Self.retainedTree(second)
        // The root, Library and its lists, Recently Played and Favorites.
        let upper: Set<[Int]> = [[], [0], [0, 0], [0, 1], [0, 2], [0, 3], [1], [2]]
        #expect(Set(after.keys) == Set(upper.map(second.topics.contentTree)), "retained: \(after.keys.sorted())")
        for payload in after.values { #expect(!payload.isEmpty) }

        // Browsed again, a deeper node is published again, and remembered for the next restart.
        #expect(try await second.request("browse", #"{"id":"c","indexPath":[0,1,0]}"#, id: "c")["status"] == "success")
        _ = try await second.waitForNode([0, 1, 0]) { $0 != nil }
        await second.stop(stopBroker: false, removeFiles: false)
        let database = try CatalogDatabase(path: directory.appendingPathComponent("catalog.sqlite").path)
        let remembered = try await database.rememberedRetainedTopics()
        try database.close()
        #expect(remembered.contains(second.topics.contentTree([0, 1, 0])))
        #expect(!remembered.contains(second.topics.contentTree([0, 1, 1])))
        broker.stop()
        try? FileManager.default.removeItem(at: directory)
    }
}
