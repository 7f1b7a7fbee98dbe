import CatalogStore
import ContentTree
import Foundation
import MQTTTransport
import MediaJSON
import MediaNode
import MediaNodeTesting
import Testing

/// The library of ContentRig: [0] Library > [0,0] Artists, [0,1] Albums (Alpha, Beta), [0,2] Songs, [0,3] Genres.
@Suite("Content tree against a real broker, GStreamer and SQLite", .serialized)
struct ContentTreeTests {
    @Test("a QoS 1 subscriber to P/content/tree/# receives every retained node, after the capabilities")
    func subscriberReceivesEveryRetainedNode() async throws {
        let rig = try await ContentRig.start()
        let paths: [[Int]] = [[], [0], [0, 0], [0, 1], [0, 2], [0, 3]]
        for path in paths { _ = try await rig.waitForNode(path) { $0 != nil } }
        // S19: capabilities reached the broker before the tree.
        let all = await rig.client.received
        let commands = try #require(all.firstIndex { $0.topic == rig.topics.commands })
        let root = try #require(all.firstIndex { $0.topic == rig.topics.contentTree })
        #expect(commands < root)

        let late = try TestMQTTClient(brokerURL: rig.broker.url)
        try await late.connect()
        try await late.subscribe("\(rig.topics.contentTree)/#", qos: 1)
        try await late.subscribe(rig.topics.contentTree, qos: 1)
        for path in paths {
            let message = try await late.first { $0.topic == rig.topics.contentTree(path) }
            #expect(message.retain)
            let node = try JSONValue(parsing: message.payload)
            #expect(node["indexPath"] == .array(path.map { .number(Double($0)) }))
            #expect(node["version"]?.numberValue != nil)
        }
        let rootNode = try #require(await rig.node([]))
        #expect(rootNode["children"]?.arrayValue?.first?["title"] == "Library")
        #expect(rootNode["item"] == nil)
        let albums = try #require(await rig.node([0, 1]))
        #expect(albums["childCount"] == 2)
        #expect(albums["children"]?.arrayValue?.map { $0["title"] } == ["Alpha", "Beta"])
        #expect(await rig.node([0, 1, 0]) == nil, "depth 3 is published only when browsed")
        await late.disconnect()
        await rig.stop()
    }

    @Test("browse answers and publishes the node; unknown paths and items answer noSuchContent; contentItem finds items")
    func browseAndContentItem() async throws {
        let rig = try await ContentRig.start()
        let reply = try await rig.request("browse", #"{"id":"b1","indexPath":[0,1,1]}"#, id: "b1")
        #expect(reply["status"] == "success")
        #expect(reply["data"]?["item"]?["title"] == "Beta")
        #expect(reply["data"]?["children"]?.arrayValue?.count == 2)
        let published = try await rig.waitForNode([0, 1, 1]) { $0 != nil }
        #expect(published?["item"]?["title"] == "Beta")
        let identifier = try #require(reply["data"]?["children"]?[0]?["identifier"]?.stringValue)

        #expect(try await rig.request("browse", #"{"id":"b2","indexPath":[5]}"#, id: "b2")["status"] == "noSuchContent")
        let track = try await rig.request("browse", #"{"id":"b3","indexPath":[0,1,1,0]}"#, id: "b3")
        #expect(track["status"] == "noSuchContent")
        let page = try await rig.request("browse", #"{"id":"b4","indexPath":[0,2],"offset":3,"limit":1}"#, id: "b4")
        #expect(page["data"]?["offset"] == 3 && page["data"]?["children"]?.arrayValue?.count == 1)
        #expect(page["data"]?["childCount"] == 5)

        let item = try await rig.request("contentItem", #"{"id":"c1","identifier":"\#(identifier)"}"#, id: "c1")
        #expect(item["status"] == "success")
        #expect(item["data"]?["isPlayable"] == true && item["data"]?["isContainer"] == false)
        #expect(item["data"]?["playbackProgress"] == -1)
        let unknown = try await rig.request("contentItem", #"{"id":"c2","identifier":"nope"}"#, id: "c2")
        #expect(unknown["status"] == "noSuchContent" && unknown["code"] == 100)
        await rig.stop()
    }

    @Test("limits on: lists are capped, deeper nodes cleared, browse beyond the depth refused; limits off: all back")
    func limitsOnAndOff() async throws {
        let rig = try await ContentRig.start()
        _ = try await rig.request("browse", #"{"id":"b","indexPath":[0,1,0]}"#, id: "b")
        _ = try await rig.waitForNode([0, 1, 0]) { $0 != nil }
        try await rig.client.publish(rig.topics.context, """
            {"contentLimitsEnforced": true, "enforcedContentItemsCount": 2, "enforcedContentTreeDepth": 2, "endpointAvailable": true}
            """)
        for path: [Int] in [[0, 0], [0, 1], [0, 2], [0, 3], [0, 1, 0]] {
            _ = try await rig.waitForNode(path) { $0 == nil }
        }
        let library = try await rig.waitForNode([0]) { $0?["childCount"] == 2 }
        #expect(library?["children"]?.arrayValue?.count == 2)
        let refused = try await rig.request("browse", #"{"id":"deep","indexPath":[0,1]}"#, id: "deep")
        #expect(refused["status"] == "noSuchContent")
        #expect(try await rig.request("browse", #"{"id":"ok","indexPath":[0]}"#, id: "ok")["status"] == "success")

        try await rig.client.publish(rig.topics.context, #"{"contentLimitsEnforced": false}"#)
        let albums = try await rig.waitForNode([0, 1]) { $0 != nil }
        #expect(albums?["childCount"] == 2)
        _ = try await rig.waitForNode([0]) { $0?["childCount"] == 4 }
        #expect(try await rig.request("browse", #"{"id":"again","indexPath":[0,1,0]}"#, id: "again")["status"] == "success")
        await rig.stop()
    }

    @Test("a refresh that adds and removes albums republishes only the changed nodes and clears the vanished ones")
    func refreshRepublishesAndClears() async throws {
        let rig = try await ContentRig.start()
        _ = try await rig.request("browse", #"{"id":"b","indexPath":[0,1,1]}"#, id: "b")
        _ = try await rig.waitForNode([0, 1, 1]) { $0?["item"]?["title"] == "Beta" }
        // Albums' retained message may reach the client after its child's: wait for it rather than read it.
        let albumsVersion = try #require(try await rig.waitForNode([0, 1]) { $0?["version"] != nil }?["version"]?.numberValue)

        // Beta goes away: Albums lists Alpha only, [0,1,1] is cleared, the root and Library stay as they were.
        try FileManager.default.removeItem(at: rig.library.appendingPathComponent("Beta"))
        await rig.client.clear()
        _ = await CatalogRefresher(database: rig.database).refresh(LocalFolderProvider(roots: [rig.library]))
        let albums = try await rig.waitForNode([0, 1]) { $0?["childCount"] == 1 }
        #expect((albums?["version"]?.numberValue ?? 0) > albumsVersion)
        _ = try await rig.waitForNode([0, 1, 1]) { $0 == nil }
        try await Task.sleep(for: .milliseconds(500))
        let changed = Set(await rig.client.received.map(\.topic).filter { $0.hasPrefix(rig.topics.contentTree) })
        #expect(!changed.contains(rig.topics.contentTree))
        #expect(!changed.contains(rig.topics.contentTree([0])))
        #expect(changed.isSubset(of: Set([[0, 0], [0, 1], [0, 2], [0, 3], [0, 1, 1]].map(rig.topics.contentTree))))
        #expect(await rig.client.messages(on: rig.topics.contentTree([0, 1])).count == 1, "one flush, one message")

        // Gamma arrives: it takes position 1 again and the node there is published only when browsed.
        let gamma = rig.library.appendingPathComponent("Gamma")
        try FileManager.default.createDirectory(at: gamma, withIntermediateDirectories: true)
        _ = try await AudioFixtures.writeTone(AudioFixtures.album(count: 1, seconds: 2, album: "Gamma")[0], in: gamma)
        _ = await CatalogRefresher(database: rig.database).refresh(LocalFolderProvider(roots: [rig.library]))
        let three = try await rig.waitForNode([0, 1]) { $0?["childCount"] == 2 }
        #expect(three?["children"]?.arrayValue?.map { $0["title"] } == ["Alpha", "Gamma"])
        #expect(await rig.node([0, 1, 1]) == nil)
        await rig.stop()
    }

    @Test("an empty catalog publishes a root of Recently Played and Favorites, each with one status item saying why")
    func emptyRootStatus() async throws {
        let rig = try await ContentRig.start(withLibrary: false)
        let root = try #require(try await rig.waitForNode([]) { $0 != nil })
        #expect(root["childCount"] == 2)
        #expect(root["children"]?.arrayValue?.map { $0["identifier"] } == ["section:recent", "section:favorites"])
        let section = try #require(try await rig.waitForNode([0]) { $0 != nil })
        let status = try #require(section["children"]?[0])
        #expect(section["childCount"] == 1 && status["identifier"] == "status:noMedia")
        #expect(status["isPlayable"] == false && status["isContainer"] == false)
        #expect(status["title"] == "Nothing played yet", "worded for the section, not \"Connect a USB drive\"")
        await rig.stop()
    }
}
