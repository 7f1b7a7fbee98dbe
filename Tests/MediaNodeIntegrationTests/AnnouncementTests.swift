import Foundation
import MediaJSON
import MediaNodeTesting
import Testing

extension RealEngineCommandTests {
    /// `announce` as a listener hears it in the WAV and a dashboard sees it on `P/events` and now playing.
    ///
    /// The music is a 440 Hz tone, clips are 1,500, 2,000 and 2,500 Hz tones: each is measured on its own
    /// in the mix (`WAVFile.toneLevel`), the music in 50 ms stretches (22 whole cycles, in which the clips'
    /// tones do not count).
    @Suite("Announcements over the music")
    struct AnnouncementTests {
        static let clipFrequencies = [1500.0, 2000, 2500]

        /// Music at 440 Hz (and `more` tones after it in the queue); clips outside the library.
        static func setUp(_ label: String, clipSeconds: Double = 1.5, more: [(frequency: Int, seconds: Double)] = []) async
            throws -> (ToneLibrary, [URL]) {
            let library = try await ToneLibrary(label, tones: [(440, 120)] + more)
            let clips = try await clipFrequencies.asyncMap { frequency in
                var track = ToneTrack(fileName: "clip \(Int(frequency)).ogg", frequency: Int(frequency), seconds: clipSeconds,
                                      title: "Clip \(Int(frequency))")
                track.amplitude = 0.5
                return try await AudioFixtures.writeTone(track, in: library.directory.appendingPathComponent("clips"))
            }
            return (library, clips)
        }

        /// A node over `library`, playing its first track for 2 s; returns it and the music's level.
        static func playing(_ library: ToneLibrary) async throws -> (RunningNode, Double) {
            let node = try await library.start()
            try await node.waitForState("paused")
            #expect(try await node.status("play") == "success")
            try await node.waitForAudio(atLeast: 2)
            let level = try node.wav().toneLevel(440, from: node.renderedSeconds() - 0.6, length: 0.5)
            return (node, level)
        }

        @Test("duck: the clip is heard over the music, lowered under it, and the music is back at its level within 0.5 s")
        func duckIsHeard() async throws {
            let (library, clips) = try await Self.setUp("announce-duck")
            defer { library.remove() }
            let node = try await library.start()
            defer { Task { await node.stop() } }
            try await node.waitForState("paused")
            #expect(try await node.status("play") == "success")
            try await node.waitForAudio(atLeast: 1.5)
            // Where things are heard is read from the WAV itself (the music before the command, the clip's
            // own span), not from when the events reach this test, which a loaded machine delays.
            let announcedAt = node.renderedSeconds()
            let reply = try await node.send("announce", #""url":"\#(clips[0].absoluteString)""#)
            #expect(reply["status"] == "success", "\(reply.jsonString)")
            let id = try #require(reply["data"]?["announcementId"]?.stringValue)
            try await node.waitForEvent("started") { $0.isAnnouncement("announcementStarted", id) }
            try await node.waitForEvent("finished") { $0.isAnnouncement("announcementFinished", id) }
            try await node.waitForAudio(atLeast: node.renderedSeconds() + 1.5)
            let wav = try node.wav()
            let span = try #require(wav.toneSpan(1500, from: announcedAt), "the clip is not in the WAV")
            let before = wav.toneLevel(440, from: announcedAt - 0.6, length: 0.5)
            let under = wav.toneLevel(440, from: span.start + 0.4, length: 0.5)
            let clip = wav.toneLevel(1500, from: span.start + 0.4, length: 0.5)
            let after = wav.toneLevel(440, from: span.end + 0.5, length: 0.5)
            let clipAfter = wav.toneLevel(1500, from: span.end + 0.5, length: 0.5)
            print(String(format: "announce duck: music %.4f, under the clip %.4f (%.1f dB), clip %.4f, after %.4f",
                         before, under, ratioInDecibels(under / before), clip, after))
            #expect(clip > 0.05, "the clip is heard: \(clip)")
            #expect(ratioInDecibels(under / before) < -3 && ratioInDecibels(under / before) > -40, "the music is ducked 3 to 40 dB")
            #expect(under > 0.001, "the ducked music is still heard")
            #expect(abs(ratioInDecibels(after / before)) < 1, "the music is back at its level: \(after) against \(before)")
            #expect(clipAfter < 0.01, "the clip ended")
            #expect(await node.nowPlaying?["state"] == "playing")
        }

        @Test("pause: now playing shows interrupted while the clip plays alone, then the music resumes where it paused")
        func pauseIsHeard() async throws {
            let (library, clips) = try await Self.setUp("announce-pause")
            defer { library.remove() }
            let (node, before) = try await Self.playing(library)
            defer { Task { await node.stop() } }
            let announcedAt = node.renderedSeconds()
            let id = try await node.announce(#""url":"\#(clips[0].absoluteString)","mode":"pause""#)
            let interrupted = try await node.waitForState("interrupted")
            try await node.waitForEvent("started") { $0.isAnnouncement("announcementStarted", id) }
            let whilePlaying = await node.nowPlaying?["state"]
            try await node.waitForEvent("finished") { $0.isAnnouncement("announcementFinished", id) }
            // The clip's last sample is in the WAV when its end is reported; what comes after is music.
            let musicBack = try await node.waitForGrowth(beyond: node.renderedBytes())
            let resumed = try await node.waitForState("playing")
            try await node.waitForAudio(atLeast: node.renderedSeconds() + 1.5)

            // What a dashboard saw: interrupted from before the clip until after it ended, then playing.
            let seen = await node.announcementTimeline(after: interrupted)
            let firstPlaying = seen.firstIndex { $0 == "state playing" }
            let finished = seen.firstIndex { $0 == "announcementFinished \(id) finished" }
            #expect(whilePlaying == "interrupted", "now playing while the clip plays: \(String(describing: whilePlaying))")
            #expect(firstPlaying != nil && finished != nil && finished! < firstPlaying!, "\(seen)")
            let pausedAt = try #require(interrupted["elapsedPlaybackTime"]?.numberValue)
            let resumedFrom = try #require(resumed["elapsedPlaybackTime"]?.numberValue)

            // What a listener heard: music, the clip alone, the music again at its level.
            let wav = try node.wav()
            let clip = try #require(wav.toneSpan(1500, from: announcedAt), "the clip is in the WAV")
            let clipLevel = wav.toneLevel(1500, from: clip.start + 0.1, length: clip.end - clip.start - 0.2)
            let musicUnder = wav.toneLevel(440, from: clip.start + 0.05, length: 1.1)
            let after = wav.toneLevel(440, from: clip.end + 0.3, length: 0.5)
            print(String(format: "announce pause: music %.4f; paused at %.3f s, resumed from %.3f s (%+.0f ms); "
                    + "the clip %.3f-%.3f s in the WAV (%.4f), the music under it %.5f, heard again %.0f ms after the clip's end "
                    + "was reported, at %.4f (%+.2f dB)",
                         before, pausedAt, resumedFrom, (resumedFrom - pausedAt) * 1000, clip.start, clip.end, clipLevel,
                         musicUnder, musicBack * 1000, after, ratioInDecibels(after / before)))
            #expect(abs(resumedFrom - pausedAt) < 0.3, "the music resumes where it paused: \(pausedAt) -> \(resumedFrom)")
            #expect(abs(clip.start - pausedAt) < 0.3, "the WAV holds the music up to where it paused, then the clip")
            #expect(clipLevel > 0.2, "the clip is heard at its level: \(clipLevel)")
            #expect(musicUnder < 0.005, "no music under the clip: \(musicUnder)")
            #expect(abs(ratioInDecibels(after / before)) < 1, "the music is back at its level: \(after) against \(before)")
            #expect(musicBack < 0.5, "the music is back within 0.5 s: \(musicBack) s")
            #expect(await node.nowPlaying?["state"] == "playing")
        }

        @Test("three clips play in the order accepted, the music ducked from the first to the end of the last")
        func threeInOrder() async throws {
            let (library, clips) = try await Self.setUp("announce-order", clipSeconds: 1.0)
            defer { library.remove() }
            let (node, before) = try await Self.playing(library)
            defer { Task { await node.stop() } }
            let announcedAt = node.renderedSeconds()
            var ids: [String] = []
            for clip in clips { ids.append(try await node.announce(#""url":"\#(clip.absoluteString)""#)) }
            let last = ids[2]
            try await node.waitForEvent("the last finished", timeout: 20) { $0.isAnnouncement("announcementFinished", last) }
            try await node.waitForAudio(atLeast: node.renderedSeconds() + 1.5)

            let seen = await node.announcementTimeline().filter { $0.hasPrefix("announcement") }
            let expected = ids.flatMap { ["announcementStarted \($0)", "announcementFinished \($0) finished"] }
            #expect(seen == expected, "events in the accepted order")
            let wav = try node.wav()
            let spans = Self.clipFrequencies.map { wav.toneSpan($0, from: announcedAt) }
            let heard = spans.compactMap { $0 }
            try #require(heard.count == 3, "each clip is heard: \(spans)")
            let ducked = wav.musicLevels(from: heard[0].start + 0.05, to: heard[2].end - 0.05)
            let loudestUnder = ducked.max() ?? 0
            let after = wav.toneLevel(440, from: heard[2].end + 0.5, length: 0.5)
            print(String(format: "announce order: clips at %.3f, %.3f, %.3f s (gaps %.0f and %.0f ms); music %.4f, "
                    + "loudest 50 ms under the clips %.4f (%.1f dB), after %.4f",
                         heard[0].start, heard[1].start, heard[2].start, (heard[1].start - heard[0].end) * 1000,
                         (heard[2].start - heard[1].end) * 1000, before, loudestUnder, ratioInDecibels(loudestUnder / before), after))
            #expect(heard[0].end <= heard[1].start + 0.01 && heard[1].end <= heard[2].start + 0.01, "one after another, in order")
            #expect(ratioInDecibels(loudestUnder / before) < -3, "the music stays ducked between the clips")
            #expect(abs(ratioInDecibels(after / before)) < 1, "the music is back after the last: \(after) against \(before)")
        }

        @Test("cancel ends the playing clip and the waiting ones as cancelled, the playing one first; the music comes back")
        func cancelEndsAll() async throws {
            let (library, clips) = try await Self.setUp("announce-cancel", clipSeconds: 5)
            defer { library.remove() }
            let (node, before) = try await Self.playing(library)
            defer { Task { await node.stop() } }
            let announcedAt = node.renderedSeconds()
            var ids: [String] = []
            for clip in clips { ids.append(try await node.announce(#""url":"\#(clip.absoluteString)""#)) }
            let first = ids[0], last = ids[2]
            try await node.waitForEvent("started") { $0.isAnnouncement("announcementStarted", first) }
            try await sleep(0.5)
            let cancelSent = Date()
            let reply = try await node.send("announce", #""cancel":true"#)
            #expect(reply["status"] == "success" && reply["data"]?["cancelled"] == 3, "\(reply.jsonString)")
            try await node.waitForEvent("the first ended") { $0.isAnnouncement("announcementFinished", first) }
            let firstEnded = Date().timeIntervalSince(cancelSent)
            try await node.waitForEvent("the last ended") { $0.isAnnouncement("announcementFinished", last) }
            try await node.waitForAudio(atLeast: node.renderedSeconds() + 1.5)

            let seen = await node.announcementTimeline().filter { $0.hasPrefix("announcement") }
            #expect(seen == ["announcementStarted \(ids[0])"] + ids.map { "announcementFinished \($0) cancelled" }, "\(seen)")
            let wav = try node.wav()
            let clip = try #require(wav.toneSpan(1500, from: announcedAt))
            let after = wav.toneLevel(440, from: clip.end + 0.5, length: 0.5)
            print(String(format: "announce cancel: the playing clip ended %.0f ms after the cancel was sent, heard for %.2f s of 5; "
                    + "music %.4f, after %.4f (%+.2f dB)", firstEnded * 1000, clip.end - clip.start, before, after,
                         ratioInDecibels(after / before)))
            #expect(clip.end - clip.start < 2, "the clip was cut short")
            // A clip that played would be heard for seconds; the cut of the first clip, mid-wave, can leak into
            // one 10 ms window at a neighbouring frequency, which is not a clip.
            let waitingHeard = [2000.0, 2500].compactMap { wav.toneSpan($0, from: announcedAt) }.filter { $0.end - $0.start > 0.1 }
            #expect(waitingHeard.isEmpty, "the waiting clips never played: \(waitingHeard)")
            #expect(abs(ratioInDecibels(after / before)) < 1, "the music is back at its level: \(after) against \(before)")
            #expect(await node.nowPlaying?["state"] == "playing")

            for fields in [#""cancel":true,"mode":"duck""#, #""cancel":true,"url":"\#(clips[0].absoluteString)""#, #""cancel":false"#] {
                let refused = try await node.send("announce", fields)
                #expect(refused["status"] == "commandFailed" && refused["message"]?.stringValue?.isEmpty == false,
                        "\(fields): \(refused.jsonString)")
            }
            let nothing = try await node.send("announce", #""cancel":true"#)
            #expect(nothing["status"] == "success" && nothing["data"]?["cancelled"] == 0, "\(nothing.jsonString)")
        }

        @Test("a shutdown while a clip plays stops it at once: it and the one waiting end cancelled")
        func shutdownStopsTheClip() async throws {
            let (library, clips) = try await Self.setUp("announce-shutdown", clipSeconds: 8)
            defer { library.remove() }
            let (node, _) = try await Self.playing(library)
            let announcedAt = node.renderedSeconds()
            let first = try await node.announce(#""url":"\#(clips[0].absoluteString)""#)
            let second = try await node.announce(#""url":"\#(clips[1].absoluteString)""#)
            try await node.waitForEvent("started") { $0.isAnnouncement("announcementStarted", first) }
            try await sleep(0.5)
            let asked = Date()
            await node.node.shutdown()
            let seconds = Date().timeIntervalSince(asked)
            let ended = try await node.waitForEvent("the second ended") { $0.isAnnouncement("announcementFinished", second) }
            let seen = await node.announcementTimeline().filter { $0.hasPrefix("announcement") }
            await node.stop()
            let wav = try node.wav()
            let clip = try #require(wav.toneSpan(1500, from: announcedAt))
            print(String(format: "announce shutdown: the node stopped %.2f s after it was asked, the clip heard %.2f s of 8",
                         seconds, clip.end - clip.start))
            #expect(seconds < 3, "the node does not wait for the clip: \(seconds) s")
            #expect(ended["reason"] == "cancelled")
            #expect(seen == ["announcementStarted \(first)", "announcementFinished \(first) cancelled",
                             "announcementFinished \(second) cancelled"], "\(seen)")
            #expect(clip.end - clip.start < 3, "the clip was stopped")
        }

        @Test("text is spoken with no music playing, and the paused music is left exactly as it was")
        func textIsHeard() async throws {
            let library = try await ToneLibrary("announce-text", tones: [(440, 120)])
            defer { library.remove() }
            let node = try await library.start()
            defer { Task { await node.stop() } }
            let paused = try await node.waitForState("paused")
            let capabilities = await node.commands?["announce"]
            #expect(capabilities?["textToSpeech"] == true && capabilities?["maxWaiting"] == 10,
                    "P/commands: \(capabilities?.jsonString ?? "nothing")")
            let id = try await node.announce(#""text":"Next stop, Main Street","lang":"en""#)
            let finished = try await node.waitForEvent("finished", timeout: 30) { $0.isAnnouncement("announcementFinished", id) }
            try await sleep(0.5)

            #expect(finished["reason"] == "finished", "\(finished.jsonString)")
            let after = try #require(await node.nowPlaying)
            for key in ["state", "elapsedPlaybackTime", "title", "playbackRate"] {
                #expect(after[key] == paused[key], "now playing's \(key): \(paused[key]?.jsonString ?? "-") -> \(after[key]?.jsonString ?? "-")")
            }
            let seen = await node.announcementTimeline(after: paused)
            #expect(seen == ["state paused", "announcementStarted \(id)", "announcementFinished \(id) finished"], "\(seen)")
            let wav = try node.wav()
            let speech = wav.rms(from: 0, length: wav.duration)
            let loudest = stride(from: 0, to: wav.duration - 0.05, by: 0.05).map { wav.rms(from: $0, length: 0.05) }.max() ?? 0
            print(String(format: "announce text: %.2f s of speech, RMS %.4f (%.1f dBFS), loudest 50 ms %.4f",
                         wav.duration, speech, ratioInDecibels(speech), loudest))
            #expect(wav.duration > 0.8, "the speech lasts: \(wav.duration) s")
            #expect(speech > 0.01, "speech is heard, well above silence: RMS \(speech)")
            #expect(wav.toneLevel(440, from: 0, length: wav.duration) < 0.005, "no music")
        }

        @Test("a clip is heard while the music is muted, at its own volume, and the music stays silent")
        func heardWhileMuted() async throws {
            let (library, clips) = try await Self.setUp("announce-muted")
            defer { library.remove() }
            let node = try await library.start()
            defer { Task { await node.stop() } }
            try await node.waitForState("paused")
            #expect(try await node.status("mute", #""isMuted":true"#) == "success")
            #expect(try await node.status("play") == "success")
            try await node.waitForAudio(atLeast: 1.0)
            let announcedAt = node.renderedSeconds()
            let id = try await node.announce(#""url":"\#(clips[0].absoluteString)","volume":0.5"#)
            try await node.waitForEvent("started") { $0.isAnnouncement("announcementStarted", id) }
            try await node.waitForEvent("finished") { $0.isAnnouncement("announcementFinished", id) }
            let wav = try node.wav()
            // The clip's place from the WAV itself, not from when its event reached this test.
            let span = try #require(wav.toneSpan(1500, from: announcedAt, threshold: 0.02), "the clip is not in the WAV")
            // The median of ten 50 ms windows: the level is the clip's, and a gap the loaded machine left in the
            // WAV (a whole-suite run once measured 0.049 over the half second) is not.
            let windows = stride(from: span.start + 0.3, to: span.start + 0.79, by: 0.05)
                .map { wav.toneLevel(1500, from: $0, length: 0.05) }.sorted()
            let clip = windows[windows.count / 2]
            let music = wav.toneLevel(440, from: span.start + 0.3, length: 0.5)
            print(String(format: "announce muted: clip %.4f (0.5 of it: %.4f expected at volume 0.5), music %.5f",
                         clip, 0.5 * 0.125, music), "windows:", windows.map { String(format: "%.4f", $0) }.joined(separator: " "))
            // The clip's sine peaks at 0.5; volume 0.5 is heard as its cube, 0.125.
            #expect(abs(clip - 0.5 * 0.125) < 0.01, "the clip at its own level: \(clip)")
            #expect(music < 0.001, "the muted music stays silent: \(music)")
            #expect(await node.latest(node.topics.volume)?["isMuted"] == true, "still muted")
        }
    }
}

// MARK: - Helpers

extension RunningNode {
    /// Sends `announce` with `fields`, expects it accepted and returns its id.
    func announce(_ fields: String) async throws -> String {
        let reply = try await send("announce", fields)
        #expect(reply["status"] == "success", "announce \(fields.prefix(200)): \(reply.jsonString)")
        return try #require(reply["data"]?["announcementId"]?.stringValue, "\(reply.jsonString)")
    }

    /// Bytes of audio in the WAV, from its size (cheap enough to poll).
    func renderedBytes() -> Int {
        guard let wavURL, let size = (try? FileManager.default.attributesOfItem(atPath: wavURL.path))?[.size] as? Int else { return 0 }
        return max(0, size - 44)
    }

    /// Waits until the WAV has grown by 10 ms of audio past `bytes`; returns the seconds waited.
    func waitForGrowth(beyond bytes: Int, timeout: Double = 5) async throws -> Double {
        let started = Date()
        while Date().timeIntervalSince(started) < timeout {
            if renderedBytes() >= bytes + 1_764 { return Date().timeIntervalSince(started) }
            try await Task.sleep(for: .milliseconds(5))
        }
        throw WaitTimeout("the WAV to grow past \(bytes) bytes")
    }

    /// What a dashboard saw on now playing and `P/events`, in arrival order, from the now playing document
    /// `from` on (all when nil): "state playing", "announcementStarted ID", "announcementFinished ID reason".
    func announcementTimeline(after from: JSONValue? = nil) async -> [String] {
        let watched = [topics.nowPlaying, topics.events]
        var lines: [String] = []
        var started = from == nil
        for message in await client.received where watched.contains(message.topic) {
            guard let value = try? JSONValue(parsing: message.payload) else { continue }
            if message.topic == topics.nowPlaying {
                if !started, value == from { started = true }
                if started, let state = value["state"]?.stringValue, lines.last != "state \(state)" { lines.append("state \(state)") }
            } else if started, let type = value["type"]?.stringValue, type.hasPrefix("announcement") {
                let id = value["announcementId"]?.stringValue ?? "?"
                lines.append([type, id, value["reason"]?.stringValue].compactMap { $0 }.joined(separator: " "))
            }
        }
        return lines
    }
}

extension JSONValue {
    /// An event of `type` about announcement `id`.
    func isAnnouncement(_ type: String, _ id: String) -> Bool {
        self["type"]?.stringValue == type && self["announcementId"]?.stringValue == id
    }
}

extension WAVFile {
    /// The 440 Hz music's level in each 50 ms stretch between `start` and `end`.
    func musicLevels(from start: Double, to end: Double, frequency: Double = 440) -> [Double] {
        stride(from: start, through: end - 0.05, by: 0.05).map { toneLevel(frequency, from: $0, length: 0.05) }
    }
}
