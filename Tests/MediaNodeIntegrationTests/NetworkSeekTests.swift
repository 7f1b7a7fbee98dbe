import Foundation
import MediaJSON
import MediaNodeTesting
import Testing

/// A seek in a podcast episode streamed over HTTP: the server answers Range requests, but slowly, as a
/// loaded host does, so the audio at the new place arrives seconds after the seek.
@Suite("Seeking in an episode over a slow network", .serialized)
struct NetworkSeekTests {
    /// 20 s at 440 Hz, then 100 s at 880 Hz: the tone rendered tells which half plays.
    static func episodeServer(in directory: URL) async throws -> RangeHTTPServer {
        let episode = try await AudioFixtures.writeToneSequence(
            [(440, 20), (880, 100)], named: "episode.ogg", in: directory)
        let server = try await RangeHTTPServer()
        await server.serve("/episode.ogg", file: episode)
        // At about 40 times the episode's bitrate, as a podcast host does, rather than all at once: when the
        // whole file has arrived before oggdemux's look at its last page gets going (which, from loopback,
        // happened under load), GStreamer 1.22 gives that look up and keeps its first bitrate estimate as
        // the duration.
        await server.throttle("/episode.ogg", bytesPerSecond: 1_000_000)
        await server.put("/feed.xml", body: """
            <rss version="2.0"><channel><title>Slow Show</title><item><guid>ep1</guid><title>Episode One</title>\
            <enclosure url="\(server.url("/episode.ogg").absoluteString)" type="audio/ogg"/></item></channel></rss>
            """)
        return server
    }

    @Test("now playing shows the new place within 3 s and holds it until audio from there plays; the bar never runs ahead")
    func slowSeek() async throws {
        let directory = try AudioFixtures.makeTemporaryDirectory("network-seek")
        let server = try await Self.episodeServer(in: directory)
        defer { server.stop() }
        let rig = try await ContentRig.start(
            directory: directory, withLibrary: false, remoteCatalogs: [server.url("/feed.xml").absoluteString])
        let node = rig.running
        #expect(try await rig.request("playItem", #"{"id":"p","indexPath":[0,0,0]}"#, id: "p")["status"] == "success")
        try await node.waitForAudio(atLeast: 1.0, timeout: 20)
        // Over HTTP the duration is first estimated from the bitrate, then read from the file's last page.
        do {
            try await node.waitUntil(node.topics.nowPlaying, "the duration", timeout: 20) {
                isNear($0["playbackDuration"]?.numberValue, 120, within: 0.01)
            }
        } catch {
            let log = await server.requests().map { "\($0.range ?? "-") \($0.status) waited \($0.waited)" }
            Issue.record("\(error); server log: \(log)")
            await rig.stop()
            return
        }

        // Every request the seek sends now waits 1.5 s before the server answers; an Ogg seek over HTTP bisects
        // the file with a dozen or more of them (the server log shows them), so the audio at the new place comes
        // seconds later.
        await server.slowSeeks(on: "/episode.ogg", seconds: 1.5)
        let before = await rig.client.messages(on: node.topics.nowPlaying).count
        let sent = Date()
        try await rig.client.publish(node.topics.command("changePlaybackPosition"), #"{"id":"s","positionTime":90}"#)

        // Within 3 s now playing says 90 s. (A message the node sent before it took the seek may still
        // arrive first, under load.)
        var shown: JSONValue?
        while shown == nil, Date().timeIntervalSince(sent) < 3 {
            shown = await rig.client.messages(on: node.topics.nowPlaying).dropFirst(before)
                .compactMap { try? JSONValue(parsing: $0.payload) }
                .first { isNear($0["elapsedPlaybackTime"]?.numberValue, 90, within: 0.005) }
            if shown == nil { try await Task.sleep(for: .milliseconds(20)) }
        }
        let latency = Date().timeIntervalSince(sent)
        let latest = await node.nowPlaying?.jsonString ?? "nothing"
        #expect(shown != nil, "now playing did not show 90 s within 3 s: \(latest)")
        #expect(shown?["state"] == "playing")
        #expect(try await rig.reply(id: "s")["status"] == "success")

        // The audio from 90 s on (880 Hz) reaches the output, and then now playing runs from where it is.
        let deadline = Date().addingTimeInterval(40)
        var heard = false
        while !heard, Date() < deadline {
            heard = isNear(try node.recentTone(length: 0.5), 880)
            if !heard { try await Task.sleep(for: .milliseconds(50)) }
        }
        let log = await server.requests().map { "\($0.range ?? "-") \($0.status) waited \($0.waited)" }
        #expect(heard, "no 880 Hz audio after the seek; server log: \(log)")
        // From the moment it showed the new place, now playing never claimed the old one.
        let since = await rig.client.messages(on: node.topics.nowPlaying).dropFirst(before)
            .compactMap { try? JSONValue(parsing: $0.payload) }
            .drop { !isNear($0["elapsedPlaybackTime"]?.numberValue, 90, within: 0.005) }
        for message in since {
            let elapsed = message["elapsedPlaybackTime"]?.numberValue ?? -1
            #expect(elapsed >= 89.5, "now playing claimed \(elapsed) s after showing 90 s")
        }
        let audible = Date().timeIntervalSince(sent)
        let running = try await node.waitUntil(node.topics.nowPlaying, "playing at rate 1") {
            $0["playbackRate"]?.numberValue == 1
        }
        // The live position agrees with the audio heard from the new place: the bar did not run ahead
        // while the server held the seek back.
        let wav = try node.wav()
        let timeline = wav.frequencyTimeline(window: 0.1)
        let lastLow = timeline.lastIndex { $0.map { isNear($0, 440) } ?? false } ?? 0
        let heardSince = wav.duration - Double(lastLow + 1) * 0.1
        let position = livePosition(running) ?? 0
        #expect(abs((position - 90) - heardSince) < 0.7,
                "now playing is at \(position) s, but \(heardSince) s of audio from 90 s were heard")
        print("seek over a slow server: now playing showed 90 s after \(String(format: "%.2f", latency)) s, "
              + "880 Hz heard after \(String(format: "%.2f", audible)) s; requests: \(log)")
        await rig.stop()
    }
}
