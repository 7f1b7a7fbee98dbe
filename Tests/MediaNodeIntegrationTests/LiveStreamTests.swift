import CatalogStore
import Foundation
import MediaJSON
import MediaNodeTesting
import Testing

@Suite("Live streams: an endless radio stream over HTTP, played by the node", .serialized)
struct LiveStreamTests {
    static let positionCommands = ["changePlaybackPosition", "skipForward", "skipBackward", "seekForward", "seekBackward"]

    @Test("an endless Ogg stream plays as live: isLiveStream, no duration, position commands disabled and refused, audio in the WAV")
    func endlessOggStreamIsLive() async throws {
        let server = try await RadioStreamServer()
        defer { server.stop() }
        let stations = try await CatalogFileRig.start([
            .init(id: "tone", title: "Tone FM", live: true, uri: server.url("/tone.ogg"),
                  fields: ["album": "Tone FM Live", "genre": "Test Tones"]),
        ])
        let node = stations.running
        let identifier = try #require(stations.identifiers["tone"])
        let reply = try await stations.play("tone")
        #expect(reply["status"] == "success", "\(reply.jsonString)")

        let nowPlaying = try await node.waitUntil(node.topics.nowPlaying, "the station playing") {
            $0["state"] == "playing" && $0["identifier"] == .string(identifier)
        }
        #expect(nowPlaying["isLiveStream"] == true)
        #expect(nowPlaying["playbackDuration"] == nil, "\(nowPlaying.jsonString)")
        #expect(nowPlaying["title"] == "Tone FM" && nowPlaying["albumTitle"] == "Tone FM Live")
        #expect(nowPlaying["genre"] == "Test Tones", "the catalog's genre is lost: \(nowPlaying.jsonString)")

        let commands = try await node.waitUntil(node.topics.commands, "position commands disabled") { document in
            Self.positionCommands.allSatisfy { document[$0]?["enabled"] == false }
        }
        #expect(commands["pause"]?["enabled"] == true && commands["nextTrack"] != nil)
        for (command, fields) in [
            ("changePlaybackPosition", #""positionTime":5"#), ("skipForward", ""), ("skipBackward", #""interval":5"#),
            ("seekForward", #""type":"beginSeeking""#),
        ] {
            let answer = try await node.send(command, fields)
            #expect(answer["status"] == "commandFailed" && answer["code"] == 200, "\(command): \(answer.jsonString)")
        }

        // The stream really is heard, for longer than any buffer could hold, and nothing ended or failed.
        let rendered = try await node.waitForAudio(atLeast: 5, timeout: 20)
        let tone = try node.tone(from: rendered - 1.5, length: 1)
        #expect(isNear(tone, 440, within: 0.03), "rendered tone \(tone ?? 0) Hz")
        let wav = try node.wav()
        #expect(wav.rms(from: rendered - 1.5, length: 1) > 0.1)
        #expect(wav.longestSilence(from: 0.5, length: rendered - 1) < 0.1, "the stream ran dry while playing")
        let events = await node.events()
        #expect(!events.contains { $0["type"] == "trackEnded" || $0["type"] == "error" }, "\(events.map(\.jsonString))")
        let latest = try #require(await node.nowPlaying)
        #expect(latest["state"] == "playing" && latest["playbackDuration"] == nil && latest["isLiveStream"] == true)
        await stations.stop()
    }

    @Test("ICY StreamTitle changes update title and artist live, without a track change; the catalog fills what the stream lacks")
    func icyStreamTitle() async throws {
        let server = try await RadioStreamServer()
        defer { server.stop() }
        await server.setStreamTitle("First Band - First Song")
        // ICY metadata is what MP3 radio carries (an Ogg stream names its songs in its own comments).
        let stations = try await CatalogFileRig.start([
            .init(id: "talk", title: "Talk FM", live: true, uri: server.url("/talk.mp3"),
                  fields: ["album": "Talk FM Live", "genre": "Talk", "releaseDate": "2024"]),
        ])
        let node = stations.running
        let identifier = try #require(stations.identifiers["talk"])
        let reply = try await stations.play("talk")
        #expect(reply["status"] == "success", "\(reply.jsonString)")

        let first = try await node.waitUntil(node.topics.nowPlaying, "the first StreamTitle", timeout: 20) {
            $0["title"] == "First Song"
        }
        #expect(first["artist"] == "First Band" && first["identifier"] == .string(identifier))
        #expect(first["albumTitle"] == "Talk FM Live" && first["genre"] == "Talk" && first["releaseDate"] == "2024")
        #expect(first["isLiveStream"] == true && first["playbackDuration"] == nil)

        await server.setStreamTitle("Second Band - Second Song")
        let second = try await node.waitUntil(node.topics.nowPlaying, "the second StreamTitle", timeout: 20) {
            $0["title"] == "Second Song"
        }
        #expect(second["artist"] == "Second Band" && second["state"] == "playing")
        #expect(second["identifier"] == .string(identifier) && second["playbackQueueIndex"] == 0)
        #expect(second["albumTitle"] == "Talk FM Live" && second["genre"] == "Talk")

        // A title without "Artist - " is all title; the previous artist does not linger.
        await server.setStreamTitle("Station jingle")
        let jingle = try await node.waitUntil(node.topics.nowPlaying, "a StreamTitle without an artist", timeout: 20) {
            $0["title"] == "Station jingle"
        }
        #expect(jingle["artist"] == nil, "\(jingle.jsonString)")

        let events = await node.events()
        #expect(events.filter { $0["type"] == "trackStarted" }.count == 1, "\(events.map(\.jsonString))")
        #expect(!events.contains { $0["type"] == "trackEnded" || $0["type"] == "error" }, "\(events.map(\.jsonString))")
        let request = try await #require(server.requests().first)
        #expect(request.icy, "the node did not ask for ICY metadata: \(request.headers)")
        let rendered = node.renderedSeconds()
        let tone = try node.tone(from: rendered - 1.5, length: 1)
        #expect(rendered > 3 && isNear(tone, 440, within: 0.03), "\(rendered) s rendered, tone \(tone ?? 0) Hz")
        await stations.stop()
    }
}
