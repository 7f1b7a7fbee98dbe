import Foundation
import MQTTTransport
import MediaJSON
import MediaNode
import MediaNodeTesting
import RemoteCommands
import Synchronization
import Testing

/// What a dashboard sees of a node, with every part in memory: the in-memory broker routes the dashboard's
/// commands to the node's router and keeps what the node retains.
@Suite("A node on in-memory twins")
struct NodeOnTwinsTests {
    @Test("at start the node is online and its capabilities list every command, each with enabled")
    func capabilities() async throws {
        let rig = try await NodeRig.start()
        let status = try #require(rig.broker.retained(rig.topics.status))
        #expect(String(decoding: status.payload, as: UTF8.self) == "online")
        let commands = try await rig.retained(rig.topics.commands) { $0.objectValue != nil }
        let entries = try #require(commands.objectValue)
        #expect(Set(entries.keys) == Set(CommandTable.names))
        for (name, entry) in entries {
            guard case .bool? = entry["enabled"] else {
                Issue.record("\(name) has no enabled flag: \(entry.jsonString)")
                continue
            }
        }
        #expect(commands["play"]?["enabled"] == .bool(true))
        await rig.stop()
    }

    @Test("pause with nothing loaded is answered noActionableNowPlayingItem, echoing the request's id")
    func pauseWithNothingLoaded() async throws {
        let rig = try await NodeRig.start()
        let reply = try await rig.request("pause")
        #expect(reply["command"] == "pause")
        #expect(reply["status"] == "noActionableNowPlayingItem" && reply["code"] == .number(110), "\(reply.jsonString)")
        await rig.stop()
    }

    @Test("an unknown command gets its reply too: commandFailed")
    func unknownCommand() async throws {
        let rig = try await NodeRig.start()
        let reply = try await rig.request("fly")
        #expect(reply["status"] == "commandFailed", "\(reply.jsonString)")
        await rig.stop()
    }

    @Test("playItem by index path answers success; now playing and the album as the queue stay retained")
    func nowPlayingAfterPlay() async throws {
        let rig = try await NodeRig.start(tracks: 3)
        // Music, its album, the album's second track.
        let reply = try await rig.request("playItem", #","indexPath":[0,0,1]"#)
        #expect(reply["status"] == "success", "\(reply.jsonString)")
        let nowPlaying = try await rig.retained(rig.topics.nowPlaying) { $0["identifier"] == "track:2" }
        #expect(nowPlaying["state"] == "playing" && nowPlaying["title"] == "Track 2", "\(nowPlaying.jsonString)")
        #expect(nowPlaying["playbackQueueIndex"] == .number(1) && nowPlaying["playbackQueueCount"] == .number(3))
        #expect(nowPlaying["playbackRate"] == .number(1))
        let queue = try await rig.retained(rig.topics.queue) { $0["index"] == .number(1) }
        #expect(queue["identifiers"] == ["track:1", "track:2", "track:3"], "\(queue.jsonString)")
        #expect(rig.engine.isPlaying)

        #expect(try await rig.request("pause")["status"] == "success")
        let paused = try await rig.retained(rig.topics.nowPlaying) { $0["state"] == "paused" }
        #expect(paused["playbackRate"] == .number(0) && paused["identifier"] == "track:2")
        await rig.stop()
    }

    @Test("what the node publishes is recorded, and the shutdown leaves offline retained")
    func offlineAtShutdown() async throws {
        let rig = try await NodeRig.start()
        await rig.stop()
        #expect(rig.transport.published.first?.topic == rig.topics.status)
        let status = try #require(rig.broker.retained(rig.topics.status))
        #expect(String(decoding: status.payload, as: UTF8.self) == "offline")
    }

    @Test("a playItem still waiting for its sound when shutdown begins gets its outcome, before offline")
    func pendingPlayItemAtShutdown() async throws {
        let rig = try await NodeRig.start(tracks: 3)
        rig.engine.holdStarts(true)
        try rig.dashboard.publish(
            topic: rig.topics.command("playItem"), payload: Array(#"{"id":"waiting","indexPath":[0,0,1]}"#.utf8),
            qos: 1, retain: false, properties: MQTTProperties())
        let loadBy = ContinuousClock.now + .seconds(10)
        while rig.engine.loadedURI == nil, ContinuousClock.now < loadBy { try await Task.sleep(for: .milliseconds(5)) }
        #expect(rig.engine.loadedURI != nil, "the playItem never reached the audio")
        let stopping = Task { await rig.stop() }
        // Shutdown has begun and waits for the sound the reply waits for.
        try await Task.sleep(for: .milliseconds(200))
        rig.engine.startCurrentItem()
        await stopping.value
        let published = rig.transport.published
        let replyAt = published.firstIndex {
            $0.topic == rig.topics.result && (try? JSONValue(parsing: $0.payload))?["id"] == "waiting"
        }
        let offlineAt = published.lastIndex {
            $0.topic == rig.topics.status && String(decoding: $0.payload, as: UTF8.self) == "offline"
        }
        let reply = try #require(replyAt.map { try JSONValue(parsing: published[$0].payload) }, "no reply to playItem")
        #expect(reply["status"] == "success", "\(reply.jsonString)")
        #expect(replyAt! < offlineAt!, "the reply came after offline")
    }

    @Test("shutdown refuses new commands, saves where the item stands and stops the audio, then says offline last")
    func shutdownInReverse() async throws {
        let rig = try await NodeRig.start(tracks: 3)
        #expect(try await rig.request("playItem", #","indexPath":[0,0,1]"#)["status"] == "success")
        _ = try await rig.retained(rig.topics.nowPlaying) { $0["state"] == "playing" }
        // Runs inside the node's `offline` publish: what has happened by then, and a command sent right then.
        let seenAtOffline = SeenAtOffline()
        let lateID = "sent-during-shutdown"
        rig.transport.whenPublishing(rig.topics.status) { [engine = rig.engine, catalog = rig.catalog, dashboard = rig.dashboard, topics = rig.topics, transport = rig.transport] in
            seenAtOffline.state.withLock { $0 = (engine.calls.contains(.shutdown), catalog.hasSavedPosition("track:2")) }
            try? dashboard.publish(
                topic: topics.command("stop"), payload: Array(#"{"id":"\#(lateID)"}"#.utf8), qos: 1, retain: false,
                properties: MQTTProperties())
            // A broker takes a moment to confirm `offline`, and a command arriving meanwhile is answered; the
            // twin confirms at once, so the wait for that moment is here (delivery is asynchronous).
            let until = ContinuousClock.now + .seconds(2)
            while ContinuousClock.now < until,
                  !transport.published.contains(where: { $0.topic == topics.result && String(decoding: $0.payload, as: UTF8.self).contains(lateID) }) {
                usleep(5_000)
            }
        }
        await rig.stop()
        let seen = try #require(seenAtOffline.state.withLock { $0 }, "the node never said offline")
        #expect(seen.audioStopped && seen.saved, "at offline: \(seen)")
        let lastRetained = rig.transport.published.last(where: \.retain)
        let last = try #require(lastRetained)
        #expect(last.topic == rig.topics.status && String(decoding: last.payload, as: UTF8.self) == "offline")
        #expect(!rig.engine.calls.contains(.stop), "the command sent during shutdown reached the audio")
        // Not performed, and answered so: a client is not left waiting for a reply that never comes.
        let replies = rig.transport.published.filter { $0.topic == rig.topics.result }
            .compactMap { try? JSONValue(parsing: $0.payload) }
        let lateReply = replies.first { $0["id"] == .string(lateID) }
        let late = try #require(lateReply, "no reply to the late command")
        #expect(late["status"] == "commandFailed")
        #expect(late["message"]?.stringValue?.contains("shutting down") == true)
    }
}

/// What a hook inside the node's `offline` publish saw.
final class SeenAtOffline: Sendable {
    let state = Mutex<(audioStopped: Bool, saved: Bool)?>(nil)
}
