import Foundation
import MediaJSON
import MediaNodeTesting
import Testing

extension RealEngineCommandTests {
    /// `announce` as a listener hears it in the WAV and a dashboard sees it on `P/events` and now playing.
    @Suite("Announcements over the music")
    struct AnnouncementTests {
        /// Music at 440 Hz; clips are 1,500, 2,000 and 2,500 Hz tones outside the library.
        static func setUp(_ label: String, clipSeconds: Double = 1.5) throws -> (ToneLibrary, [URL]) {
            let library = try ToneLibrary(label, tones: [(440, 120)])
            let clips = try [1500, 2000, 2500].map { frequency in
                var track = ToneTrack(fileName: "clip \(frequency).ogg", frequency: frequency, seconds: clipSeconds,
                                      title: "Clip \(frequency)")
                track.amplitude = 0.5
                return try AudioFixtures.writeTone(track, in: library.directory.appendingPathComponent("clips"))
            }
            return (library, clips)
        }

        @Test("duck: the clip is heard over the music, lowered under it, and the music is back at its level within 0.5 s")
        func duckIsHeard() async throws {
            let (library, clips) = try Self.setUp("announce-duck")
            defer { library.remove() }
            let node = try await library.start()
            defer { Task { await node.stop() } }
            try await node.waitForState("paused")
            #expect(try await node.status("play") == "success")
            try await node.waitForAudio(atLeast: 1.5)
            let reply = try await node.send("announce", #""url":"\#(clips[0].absoluteString)""#)
            #expect(reply["status"] == "success", "\(reply.jsonString)")
            let id = try #require(reply["data"]?["announcementId"]?.stringValue)
            try await node.waitForEvent("started") { $0["type"] == "announcementStarted" && $0["announcementId"]?.stringValue == id }
            let startedAt = node.renderedSeconds()
            try await node.waitForEvent("finished") { $0["type"] == "announcementFinished" && $0["announcementId"]?.stringValue == id }
            let finishedAt = node.renderedSeconds()
            try await node.waitForAudio(atLeast: finishedAt + 1.5)
            let wav = try node.wav()
            let before = wav.toneLevel(440, from: startedAt - 1.0, length: 0.5)
            let under = wav.toneLevel(440, from: startedAt + 0.4, length: 0.5)
            let clip = wav.toneLevel(1500, from: startedAt + 0.4, length: 0.5)
            let after = wav.toneLevel(440, from: finishedAt + 0.5, length: 0.5)
            let clipAfter = wav.toneLevel(1500, from: finishedAt + 0.5, length: 0.5)
            print(String(format: "announce duck: music %.4f, under the clip %.4f (%.1f dB), clip %.4f, after %.4f",
                         before, under, ratioInDecibels(under / before), clip, after))
            #expect(clip > 0.05, "the clip is heard: \(clip)")
            #expect(ratioInDecibels(under / before) < -3 && ratioInDecibels(under / before) > -40, "the music is ducked 3 to 40 dB")
            #expect(under > 0.001, "the ducked music is still heard")
            #expect(abs(ratioInDecibels(after / before)) < 1, "the music is back at its level: \(after) against \(before)")
            #expect(clipAfter < 0.01, "the clip ended")
            #expect(await node.nowPlaying?["state"] == "playing")
        }
    }
}

extension WAVFile {
    /// The amplitude of the sine at `frequency` in channel 0 between `start` and `start + length` (Goertzel),
    /// as a fraction of full scale: a tone mixed with others is still measured on its own.
    func toneLevel(_ frequency: Double, from start: Double, length: Double) -> Double {
        let samples = channel0(from: max(0, start), length: length)
        guard !samples.isEmpty else { return 0 }
        let omega = 2 * Double.pi * frequency / Double(sampleRate)
        let coefficient = 2 * cos(omega)
        var previous = 0.0, beforePrevious = 0.0
        for sample in samples {
            let current = sample + coefficient * previous - beforePrevious
            beforePrevious = previous
            previous = current
        }
        let power = previous * previous + beforePrevious * beforePrevious - coefficient * previous * beforePrevious
        return 2 * sqrt(max(0, power)) / Double(samples.count)
    }
}
