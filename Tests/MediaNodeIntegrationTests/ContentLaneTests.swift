import Foundation
import MediaJSON
import MediaNodeTesting
import Testing

/// Browses of published nodes are answered on the transport's thread, the rest of the content commands
/// on their lane; a head unit still gets its replies in the order it asked.
@Suite("Content replies keep the order of their requests", .serialized)
struct ContentLaneTests {
    @Test("contentItem lookups and browses of the published root, sent back to back, are answered in order")
    func interleavedOrder() async throws {
        let rig = try await ContentRig.start()
        let root = try #require(await rig.node([]))
        let first = try #require(root["children"]?[0]?["identifier"]?.stringValue)
        var expected: [String] = []
        for index in 0..<25 {
            // The lookup reads the catalog; the browse right behind it could be answered from memory at once.
            try await rig.client.publish(rig.topics.command("contentItem"), #"{"id":"item\#(index)","identifier":"\#(first)"}"#)
            try await rig.client.publish(rig.topics.command("browse"), #"{"id":"browse\#(index)","indexPath":[]}"#)
            expected += ["item\(index)", "browse\(index)"]
        }
        _ = try await rig.reply(id: "browse24")
        let replies = await rig.client.messages(on: rig.topics.result).compactMap { try? JSONValue(parsing: $0.payload) }
        #expect(replies.compactMap { $0["id"]?.stringValue } == expected)
        #expect(replies.allSatisfy { $0["status"] == "success" }, "\(replies.map(\.jsonString))")
        #expect(replies.last?["data"]?["children"]?[0]?["identifier"]?.stringValue == first)
        await rig.stop()
    }

    @Test("a browse of a published node is answered while the playback lane is busy with a slow command")
    func browseBesideBusyPlayback() async throws {
        let rig = try await ContentRig.start()
        // A seek makes the engine flush and wait for its preroll; browses must not queue behind it.
        _ = try await rig.request("playItem", #"{"id":"play","indexPath":[0,1,0,0]}"#, id: "play")
        for index in 0..<10 {
            try await rig.client.publish(rig.topics.command("changePlaybackPosition"), #"{"id":"seek\#(index)","positionTime":1}"#)
        }
        try await rig.client.publish(rig.topics.command("browse"), #"{"id":"browse","indexPath":[]}"#)
        _ = try await rig.reply(id: "seek9")
        let order = await rig.client.messages(on: rig.topics.result).compactMap {
            (try? JSONValue(parsing: $0.payload))?["id"]?.stringValue
        }
        let browse = try #require(order.firstIndex(of: "browse"))
        #expect(browse < order.firstIndex(of: "seek9")!, "replies: \(order)")
        await rig.stop()
    }
}
