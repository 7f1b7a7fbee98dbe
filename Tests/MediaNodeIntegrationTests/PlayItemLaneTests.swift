import CatalogStore
import ContentTree
import Foundation
import MQTTTransport
import MediaJSON
import MediaNode
import MediaNodeTesting
import Testing

/// playItem answers once audio plays (S24) without holding up the commands sent after it.
@Suite("playItem of a slow item does not hold up other commands", .serialized)
struct PlayItemLaneTests {
    /// A rig whose catalog also holds "Slow start": an Ogg file served over HTTP 2 KB every 0.3
    /// seconds, so it takes a couple of seconds before GStreamer has enough to play.
    static func startWithSlowItem() async throws -> (rig: ContentRig, server: FaultHTTPServer, slow: String) {
        let rig = try await ContentRig.start()
        let server = try await FaultHTTPServer()
        let tone = try await AudioFixtures.writeTone(
            ToneTrack(fileName: "slow.ogg", frequency: 550, seconds: 4, title: "Slow start"),
            in: rig.directory.appendingPathComponent("served"))
        await server.put("/slow.ogg", data: try Data(contentsOf: tone), contentType: "audio/ogg")
        await server.inject(Array(repeating: .drip(seconds: 0.3, chunk: 2048), count: 4), at: "/slow.ogg")
        let catalog = rig.directory.appendingPathComponent("slow.json")
        try Data("""
            {"format": "medianode-catalog", "version": 1, "items": [
              {"id": "slow", "title": "Slow", "children": [
                {"id": "s1", "title": "Slow start", "uri": "\(server.url("/slow.ogg").absoluteString)", "duration": 4}
              ]}
            ]}
            """.utf8).write(to: catalog)
        let provider = try RemoteCatalogProvider(location: catalog.path, fetcher: StandardCatalogFetcher())
        let report = await CatalogRefresher(database: rig.database).refresh(provider)
        guard case .updated = report else { throw WaitTimeout("the slow catalog did not import: \(report)") }
        return (rig, server, "\(provider.source.identifier)/s1")
    }

    /// Every reply on P/result, in arrival order, by id.
    static func replyOrder(_ rig: ContentRig) async -> [String] {
        await rig.client.messages(on: rig.topics.result).compactMap {
            (try? JSONValue(parsing: $0.payload))?["id"]?.stringValue
        }
    }

    @Test("a browse and a contentItem sent right after a playItem of a slow item are answered before it")
    func browseIsNotHeldUp() async throws {
        let (rig, server, slow) = try await Self.startWithSlowItem()
        defer { server.stop() }
        try await rig.client.publish(rig.topics.command("playItem"), #"{"id":"play","identifier":"\#(slow)"}"#)
        try await rig.client.publish(rig.topics.command("browse"), #"{"id":"browse","indexPath":[0,1]}"#)
        try await rig.client.publish(rig.topics.command("contentItem"), #"{"id":"item","identifier":"\#(slow)"}"#)
        let play = try await rig.reply(id: "play", timeout: .seconds(30))
        #expect(play["status"] == "success", "\(play.jsonString)")
        let order = await Self.replyOrder(rig)
        #expect(order.firstIndex(of: "browse")! < order.firstIndex(of: "play")!, "replies: \(order)")
        #expect(order.firstIndex(of: "item")! < order.firstIndex(of: "play")!, "replies: \(order)")
        // The success is true: now playing says the slow item plays (it may come just after the reply).
        _ = try await rig.client.first(timeout: .seconds(5)) { message in
            guard message.topic == rig.topics.nowPlaying, let document = try? JSONValue(parsing: message.payload)
            else { return false }
            return document["state"] == "playing" && document["identifier"] == .string(slow)
        }
        await #expect(server.requests().contains { $0.path == "/slow.ogg" })
        await rig.stop()
    }

    @Test("a pause or another playItem before the slow item starts takes effect at once; the slow playItem says why it failed")
    func laterCommandsSupersedeTruthfully() async throws {
        let (rig, server, slow) = try await Self.startWithSlowItem()
        defer { server.stop() }
        try await rig.client.publish(rig.topics.command("playItem"), #"{"id":"slow1","identifier":"\#(slow)"}"#)
        let pause = try await rig.request("pause", #"{"id":"pause"}"#, id: "pause")
        #expect(pause["status"] == "success")
        let paused = try await rig.reply(id: "slow1", timeout: .seconds(30))
        #expect(paused["status"] == "commandFailed")
        #expect(paused["message"]?.stringValue?.contains("before the item started") == true, "\(paused.jsonString)")

        // Superseded by a local track: the slow one fails first, then the new one answers success.
        await server.inject(Array(repeating: .drip(seconds: 0.3, chunk: 2048), count: 4), at: "/slow.ogg")
        await rig.client.clear()
        try await rig.client.publish(rig.topics.command("playItem"), #"{"id":"slow2","identifier":"\#(slow)"}"#)
        let local = try await rig.request("playItem", #"{"id":"local","indexPath":[0,1,0,0]}"#, id: "local")
        #expect(local["status"] == "success")
        let replaced = try await rig.reply(id: "slow2", timeout: .seconds(30))
        #expect(replaced["status"] == "commandFailed")
        #expect(replaced["message"]?.stringValue?.contains("replaced before it started") == true, "\(replaced.jsonString)")
        _ = try await rig.client.first(timeout: .seconds(5)) { message in
            guard message.topic == rig.topics.nowPlaying, let document = try? JSONValue(parsing: message.payload)
            else { return false }
            return document["state"] == "playing" && document["title"] == "Tone 440"
        }
        await rig.stop()
    }
}
