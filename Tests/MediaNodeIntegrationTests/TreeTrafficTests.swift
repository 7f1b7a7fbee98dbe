import Foundation
import MQTTTransport
import MediaJSON
import MediaNode
import MediaNodeTesting
import Testing

/// What a dashboard subscribed to the whole tree receives while music or a podcast plays steadily: the
/// position is saved every half second here (every 10 s by default), yet the tree stays quiet once
/// Recently Played has listed the item at its 5 s mark.
@Suite("The content tree is quiet during steady playback", .serialized)
struct TreeTrafficTests {
    /// A feed of one episode, `seconds` long, served from a file.
    static func podcast(in directory: URL, seconds: Double) async throws -> URL {
        let episode = try await AudioFixtures.writeTone(
            ToneTrack(fileName: "episode.ogg", frequency: 550, seconds: seconds, title: "Episode"), in: directory)
        let feed = directory.appendingPathComponent("feed.xml")
        try """
            <rss version="2.0"><channel><title>Quiet Show</title><item><guid>ep1</guid><title>Episode One</title>\
            <enclosure url="\(episode.absoluteString)" type="audio/ogg"/></item></channel></rss>
            """.write(to: feed, atomically: true, encoding: .utf8)
        return feed
    }

    static func treeMessages(_ rig: ContentRig) async -> [MQTTMessage] {
        let tree = rig.topics.contentTree
        return await rig.client.received.filter { $0.topic == tree || $0.topic.hasPrefix(tree + "/") }
    }

    /// Waits until Recently Played (at `path`) lists the playing item first: its 5 s mark has passed.
    static func waitForMark(_ rig: ContentRig, recent path: [Int]) async throws {
        let playing = try #require(await rig.running.nowPlaying?["identifier"])
        _ = try await rig.waitForNode(path) { $0?["children"]?[0]?["identifier"] == playing }
        try await Task.sleep(for: .milliseconds(300))
    }

    @Test("music: after the 5 s mark an album track publishes nothing on the tree; a pause republishes Recently Played alone")
    func musicIsSilent() async throws {
        let directory = try AudioFixtures.makeTemporaryDirectory("traffic-music")
        _ = try await ContentRig.makeLibrary(in: directory, seconds: 20)
        let rig = try await ContentRig.start(directory: directory)
        // Songs ([0, 2]) lists the track, and is published at start.
        _ = try await rig.waitForNode([0, 2]) { $0?["children"]?[0] != nil }
        #expect(try await rig.request("playItem", #"{"id":"p","indexPath":[0,1,0,0]}"#, id: "p")["status"] == "success")
        try await Self.waitForMark(rig, recent: [1])
        let before = await Self.treeMessages(rig).count
        try await Task.sleep(for: .seconds(4))
        let during = await Self.treeMessages(rig).dropFirst(before)
        #expect(during.isEmpty, "the tree got \(during.count) messages: \(during.map(\.topic))")
        #expect(try await rig.request("pause", #"{"id":"pause"}"#, id: "pause")["status"] == "success")
        try await Task.sleep(for: .seconds(1))
        // Recently Played shows progress; the album and Songs do not.
        let paused = await Self.treeMessages(rig).dropFirst(before)
        #expect(paused.map(\.topic) == [rig.topics.contentTree([1])], "\(paused.map(\.topic))")
        await rig.stop()
    }

    @Test("podcast: no update while the position moves less than a minute; pause republishes the feed and Recently Played once with the new progress")
    func podcastUpdatesOnPause() async throws {
        let directory = try AudioFixtures.makeTemporaryDirectory("traffic-podcast")
        let feed = try await Self.podcast(in: directory, seconds: 30)
        let rig = try await ContentRig.start(directory: directory, withLibrary: false, remoteCatalogs: [feed.path])
        // Podcasts > Quiet Show, published at start with its episode.
        let show = try await rig.waitForNode([0, 0]) { $0?["children"]?[0] != nil }
        #expect(show?["displaysPlaybackProgress"] == true)
        #expect(try await rig.request("playItem", #"{"id":"p","indexPath":[0,0,0]}"#, id: "p")["status"] == "success")
        try await Self.waitForMark(rig, recent: [1])
        let before = await Self.treeMessages(rig).count
        try await Task.sleep(for: .seconds(4))
        let playing = await Self.treeMessages(rig).dropFirst(before)
        #expect(playing.isEmpty, "the tree got \(playing.count) messages while playing: \(playing.map(\.topic))")
        #expect(try await rig.request("pause", #"{"id":"pause"}"#, id: "pause")["status"] == "success")
        let paused = try await rig.waitForNode([0, 0]) { ($0?["children"]?[0]?["playbackProgress"]?.numberValue ?? -1) > 0.1 }
        try await Task.sleep(for: .seconds(1))
        let after = await Self.treeMessages(rig).dropFirst(before)
        #expect(after.map(\.topic).sorted() == [rig.topics.contentTree([0, 0]), rig.topics.contentTree([1])],
                "\(after.map(\.topic))")
        #expect(paused?["children"]?[0]?["playbackProgress"]?.numberValue ?? 0 < 0.5)
        await rig.stop()
    }

    @Test("podcast: a shutdown while an episode plays republishes the feed with the saved position, before offline")
    func podcastUpdatesOnShutdown() async throws {
        let directory = try AudioFixtures.makeTemporaryDirectory("traffic-shutdown")
        let feed = try await Self.podcast(in: directory, seconds: 30)
        let rig = try await ContentRig.start(directory: directory, withLibrary: false, remoteCatalogs: [feed.path])
        _ = try await rig.waitForNode([0, 0]) { $0?["children"]?[0] != nil }
        #expect(try await rig.request("playItem", #"{"id":"p","indexPath":[0,0,0]}"#, id: "p")["status"] == "success")
        // Five seconds of thirty: a sixth, short of the minute that would republish while playing.
        try await Task.sleep(for: .seconds(5))
        await rig.node.shutdown()
        let status = rig.topics.status, show = rig.topics.contentTree([0, 0])
        func isOffline(_ message: MQTTMessage) -> Bool { message.topic == status && message.payload == Array("offline".utf8) }
        _ = try await rig.client.first { $0.topic == status && $0.payload == Array("offline".utf8) }
        let received = await rig.client.received
        let offline = try #require(received.lastIndex(where: isOffline))
        let last = received[..<offline].last { $0.topic == show }.flatMap { try? JSONValue(parsing: $0.payload) }
        let progress = last?["children"]?[0]?["playbackProgress"]?.numberValue ?? -1
        #expect(progress > 0.1 && progress < 0.5, "the show before offline: \(last?.jsonString ?? "nothing")")
        await rig.stop()
    }

    @Test("podcast: while playing, the feed is republished only when its progress moved by the step, never on every save")
    func podcastUpdatesByStep() async throws {
        let directory = try AudioFixtures.makeTemporaryDirectory("traffic-step")
        let feed = try await Self.podcast(in: directory, seconds: 40)
        // A 2 s step stands in for the minute, so the test needs seconds, not minutes.
        let settings = ContentSettings(progressInterval: .milliseconds(500), progressStep: .seconds(2))
        let rig = try await ContentRig.start(
            directory: directory, withLibrary: false, remoteCatalogs: [feed.path], content: settings)
        _ = try await rig.waitForNode([0, 0]) { $0?["children"]?[0] != nil }
        // The upper levels go out depth first: Favorites ([2]) after the feed.
        _ = try await rig.waitForNode([2]) { $0 != nil }
        let before = await Self.treeMessages(rig).count
        #expect(try await rig.request("playItem", #"{"id":"p","indexPath":[0,0,0]}"#, id: "p")["status"] == "success")
        try await Task.sleep(for: .seconds(7))
        // Recently Played ([1]) lists the episode at 5 s and then follows the same step; the feed is counted.
        let feedTopic = rig.topics.contentTree([0, 0])
        let all = await Self.treeMessages(rig).dropFirst(before)
        let updates = all.filter { $0.topic == feedTopic }
        let progress = updates.compactMap { try? JSONValue(parsing: $0.payload)["children"]?[0]?["playbackProgress"]?.numberValue }
        // About one update per 2 s of playback (saves come every 0.5 s): at least one, at most four in 7 s.
        #expect((1...4).contains(updates.count), "\(updates.count) updates, progress \(progress)")
        #expect(Set(all.map(\.topic)).isSubset(of: [feedTopic, rig.topics.contentTree([1])]), "\(all.map(\.topic))")
        #expect(progress == progress.sorted() && zip(progress, progress.dropFirst()).allSatisfy { $1 - $0 >= 0.04 },
                "each update moved by 2 s of 40: \(progress)")
        await rig.stop()
    }
}
