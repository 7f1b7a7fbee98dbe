import Foundation
import MediaJSON
import MediaNodeTesting
import Testing

extension RealEngineCommandTests.AnnouncementTests {
    @Test("pause during a ducked clip pauses the music; the clip plays on to its end and the music stays paused")
    func pauseDuringClip() async throws {
        let (library, clips) = try await Self.setUp("announce-pause-during", clipSeconds: 4)
        defer { library.remove() }
        let (node, before) = try await Self.playing(library)
        defer { Task { await node.stop() } }
        let announcedAt = node.renderedSeconds()
        let id = try await node.announce(#""url":"\#(clips[0].absoluteString)""#)
        try await node.waitForEvent("started") { $0.isAnnouncement("announcementStarted", id) }
        try await sleep(1)
        #expect(try await node.status("pause") == "success")
        let paused = try await node.waitForState("paused")
        let finished = try await node.waitForEvent("finished") { $0.isAnnouncement("announcementFinished", id) }
        let endBytes = node.renderedBytes()
        try await sleep(1)
        let grownWhilePaused = Double(node.renderedBytes() - endBytes) / 176_400
        let stillPaused = await node.nowPlaying

        #expect(finished["reason"] == "finished", "the clip is not cancelled by pause: \(finished.jsonString)")
        #expect(stillPaused?["state"] == "paused" && stillPaused?["elapsedPlaybackTime"] == paused["elapsedPlaybackTime"],
                "the music stays paused: \(stillPaused?.jsonString ?? "nothing")")
        #expect(grownWhilePaused < 0.05, "nothing heard after the clip: \(grownWhilePaused) s more audio")
        let wav = try node.wav()
        let clip = try #require(wav.toneSpan(1500, from: announcedAt))
        let musicLate = wav.toneLevel(440, from: clip.end - 2, length: 1.5)
        #expect(clip.end - clip.start > 3.8, "the whole clip is heard: \(clip.end - clip.start) s")
        #expect(musicLate < 0.005, "no music in the clip's last seconds: \(musicLate)")

        // Played again, the music is at its level, not left ducked.
        #expect(try await node.status("play") == "success")
        try await node.waitForState("playing")
        let resumedAt = node.renderedSeconds()
        try await node.waitForAudio(atLeast: resumedAt + 1.2)
        let after = try node.wav().toneLevel(440, from: resumedAt + 0.5, length: 0.5)
        print(String(format: "announce pause during a clip: the clip heard %.2f s of 4, music in its last 1.5 s %.5f, "
                + "%.3f s more audio in the second after it; played again %.4f against %.4f (%+.2f dB)",
                     clip.end - clip.start, musicLate, grownWhilePaused, after, before, ratioInDecibels(after / before)))
        #expect(abs(ratioInDecibels(after / before)) < 1, "played again at its level: \(after) against \(before)")
    }

    @Test("seek and nextTrack during a clip act on the music as usual, which stays ducked until the clip ends")
    func seekAndNextDuringClip() async throws {
        let (library, clips) = try await Self.setUp("announce-next-during", clipSeconds: 4, more: [(660, 120)])
        defer { library.remove() }
        let (node, before) = try await Self.playing(library)
        defer { Task { await node.stop() } }
        let announcedAt = node.renderedSeconds()
        let id = try await node.announce(#""url":"\#(clips[0].absoluteString)""#)
        try await node.waitForEvent("started") { $0.isAnnouncement("announcementStarted", id) }
        try await sleep(0.3)
        #expect(try await node.status("changePlaybackPosition", #""positionTime":60"#) == "success")
        try await node.waitForPosition(atLeast: 60)
        let seekedAt = node.renderedSeconds()
        try await sleep(0.6)
        #expect(try await node.status("nextTrack") == "success")
        try await node.waitUntil(node.topics.nowPlaying, "the next track") { $0["title"] == "Tone 660" && $0["state"] == "playing" }
        let nextAt = node.renderedSeconds()
        let finished = try await node.waitForEvent("finished") { $0.isAnnouncement("announcementFinished", id) }
        try await node.waitForAudio(atLeast: node.renderedSeconds() + 1.5)

        #expect(finished["reason"] == "finished", "\(finished.jsonString)")
        let wav = try node.wav()
        let clip = try #require(wav.toneSpan(1500, from: announcedAt))
        let nextUnder = wav.toneLevel(660, from: max(nextAt + 0.2, clip.end - 0.8), length: 0.5)
        let seekUnder = wav.toneLevel(440, from: seekedAt + 0.1, length: 0.3)
        let after = wav.toneLevel(660, from: clip.end + 0.5, length: 0.5)
        print(String(format: "announce seek and next during a clip: the clip heard %.2f s of 4; under it after the seek %.4f, "
                + "the next track %.4f (%.1f dB); after it %.4f against %.4f (%+.2f dB)",
                     clip.end - clip.start, seekUnder, nextUnder, ratioInDecibels(nextUnder / before), after, before,
                     ratioInDecibels(after / before)))
        #expect(clip.end - clip.start > 3.8, "the whole clip is heard: \(clip.end - clip.start) s")
        #expect(nextAt + 0.2 < clip.end - 0.3, "the next track began under the clip")
        #expect(ratioInDecibels(seekUnder / before) < -3 && seekUnder > 0.001, "the music after the seek is ducked")
        #expect(ratioInDecibels(nextUnder / before) < -3 && nextUnder > 0.001, "the next track is ducked under the clip")
        #expect(abs(ratioInDecibels(after / before)) < 1, "the next track is at its level after the clip")
        let last = await node.nowPlaying
        #expect(last?["title"] == "Tone 660" && last?["state"] == "playing", "\(last?.jsonString ?? "nothing")")
    }
}
