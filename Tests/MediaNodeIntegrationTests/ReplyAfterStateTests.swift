import Foundation
import MQTTTransport
import MediaJSON
import MediaNodeTesting
import Testing

/// A reply never overtakes the retained state its command changed: a head unit that reads now playing on
/// the reply to playItem sees the item it asked for, not the one before.
@Suite("A reply comes after the state its command changed", .serialized)
struct ReplyAfterStateTests {
    @Test("playItem of an item whose cover must be scaled: each time, now playing names the new item before the reply")
    func nowPlayingBeforePlayItemReply() async throws {
        let directory = try AudioFixtures.makeTemporaryDirectory("reply-order")
        defer { try? FileManager.default.removeItem(at: directory) }
        let music = directory.appendingPathComponent("music")
        // An album each, each with its own big cover: every first play of one has a picture to read and scale.
        var files: [URL] = []
        for (index, pattern) in [0, 11, 13, 14, 21, 22].enumerated() {
            let folder = music.appendingPathComponent("Album \(index)")
            files.append(try await AudioFixtures.writeTone(
                ToneTrack(fileName: "track.ogg", frequency: 440 + 110 * index, seconds: 20, title: "Track \(index)",
                          album: "Album \(index)"),
                in: folder))
            try await AudioFixtures.writeCover(named: "cover.jpg", width: 4000, height: 3000, pattern: pattern, in: folder)
        }
        let wav = directory.appendingPathComponent("out.wav")
        let running = try await RunningNode.start(libraries: [music.path], sink: "wav:\(wav.path)")
        let identifiers = files.map { LibraryCatalog.trackIdentifier(path: $0.path, libraries: [music.path]) }
        let nowPlaying = running.topics.nowPlaying, result = running.topics.result

        // The first album is loaded (paused) at start: begin with the second, and go round twice.
        let order = Array(identifiers.dropFirst()) + identifiers + [identifiers[1]]
        var checkedUpTo = await running.client.received.count
        for (turn, identifier) in order.enumerated() {
            let reply = try await running.send("playItem", #""identifier":"\#(identifier)""#)
            #expect(reply["status"] == "success", "turn \(turn): \(reply.jsonString)")
            let id = try #require(reply["id"]?.stringValue)
            let received = Array(await running.client.received.dropFirst(checkedUpTo))
            let replyAt = try #require(received.firstIndex {
                $0.topic == result && (try? JSONValue(parsing: $0.payload))?["id"] == .string(id)
            })
            let shownAt = received.firstIndex {
                $0.topic == nowPlaying && (try? JSONValue(parsing: $0.payload))?["identifier"] == .string(identifier)
            }
            #expect(shownAt.map { $0 < replyAt } == true,
                    "turn \(turn): of the messages since the request, the reply was number \(replyAt) and now playing naming \(identifier) \(shownAt.map { "number \($0)" } ?? "not among those before it")")
            checkedUpTo += replyAt + 1
            // The cover follows, in a message of its own when it had to be scaled.
            try await running.waitUntil(nowPlaying, "the cover of \(identifier)") {
                $0["identifier"]?.stringValue == identifier && $0["artwork"] != nil
            }
        }
        await running.stop()
    }

    @Test("play and pause, again and again: each reply comes after now playing shows the state it asked for")
    func nowPlayingBeforePlayAndPauseReplies() async throws {
        let directory = try AudioFixtures.makeTemporaryDirectory("reply-order-pause")
        defer { try? FileManager.default.removeItem(at: directory) }
        try await AudioFixtures.writeTone(ToneTrack(fileName: "a.ogg", frequency: 440, seconds: 30, title: "A"), in: directory)
        let running = try await RunningNode.start(libraries: [directory.path], sink: "fake")
        let nowPlaying = running.topics.nowPlaying, result = running.topics.result
        var checkedUpTo = await running.client.received.count
        for turn in 0..<20 {
            let (command, state) = turn.isMultiple(of: 2) ? ("play", "playing") : ("pause", "paused")
            let reply = try await running.send(command)
            #expect(reply["status"] == "success", "turn \(turn): \(reply.jsonString)")
            let id = try #require(reply["id"]?.stringValue)
            let received = Array(await running.client.received.dropFirst(checkedUpTo))
            let replyAt = try #require(received.firstIndex {
                $0.topic == result && (try? JSONValue(parsing: $0.payload))?["id"] == .string(id)
            })
            let shownAt = received.firstIndex {
                $0.topic == nowPlaying && (try? JSONValue(parsing: $0.payload))?["state"] == .string(state)
            }
            #expect(shownAt.map { $0 < replyAt } == true,
                    "turn \(turn), \(command): of the messages since the request, the reply was number \(replyAt) and now playing saying \(state) \(shownAt.map { "number \($0)" } ?? "not among those before it")")
            checkedUpTo += replyAt + 1
        }
        await running.stop()
    }
}
