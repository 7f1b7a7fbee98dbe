import Foundation
import MediaJSON
import MediaNode
import MediaNodeTesting
import Testing

extension RealEngineCommandTests {
    /// Loudness levelling from ReplayGain tags, as a listener hears it in the WAV.
    @Suite("Loudness from tags")
    struct LoudnessTagTests {
        /// A 0.5-amplitude sine's RMS: what an unlevelled tone track renders at volume 1.
        static let toneRMS = 0.5 / 2.squareRoot()

        @Test("a tagged track plays at its ReplayGain track gain at once, and now playing and its content item show its loudness")
        func trackGain() async throws {
            let library = try await TaggedLibrary("loudness-track", tracks: [("01 quiet.ogg", 440, 8, "Quiet", ["replaygain-track-gain=(double)-10", "replaygain-track-peak=(double)0.5"])])
            defer { library.tones.remove() }
            let node = try await library.tones.start()
            defer { Task { await node.stop() } }
            let paused = try await node.waitForState("paused")
            #expect(paused["loudness"] == -8, "-18 LUFS less the -10 dB gain: \(paused.jsonString)")
            let item = try await node.send("contentItem", #""identifier":"\#(library.tones.identifier(0))""#)
            #expect(item["data"]?["loudness"] == -8, "\(item.jsonString)")
            #expect(try await node.status("play") == "success")
            try await node.waitForAudio(atLeast: 1.5)
            let level = try node.wav().rms(from: 0.5, length: 0.8)
            #expect(abs(ratioInDecibels(level / Self.toneRMS) + 10) < 1, "heard \(ratioInDecibels(level / Self.toneRMS)) dB")
        }

        @Test("--loudness-target off plays the tagged track as it is, and -23 lowers it 5 dB more")
        func targets() async throws {
            for (target, expected) in [(nil, 0.0), (-23.0, -15.0)] as [(Double?, Double)] {
                let library = try await TaggedLibrary("loudness-off", tracks: [("01 quiet.ogg", 440, 6, "Quiet", ["replaygain-track-gain=(double)-10"])])
                defer { library.tones.remove() }
                let node = try await library.tones.start(configure: { $0.loudnessTarget = target })
                try await node.waitForState("paused")
                #expect(try await node.status("play") == "success")
                try await node.waitForAudio(atLeast: 1.5)
                let heard = ratioInDecibels(try node.wav().rms(from: 0.5, length: 0.8) / Self.toneRMS)
                #expect(abs(heard - expected) < 1, "target \(String(describing: target)): heard \(heard) dB")
                await node.stop()
            }
        }

        @Test("tracks of one album playing in order use the album gain")
        func albumGain() async throws {
            let album = ["replaygain-album-gain=(double)-4"]
            let library = try await TaggedLibrary("loudness-album", tracks: [
                ("01 a.ogg", 440, 6, "A", ["replaygain-track-gain=(double)-10"] + album),
                ("02 b.ogg", 880, 6, "B", ["replaygain-track-gain=(double)-1"] + album),
            ])
            defer { library.tones.remove() }
            let node = try await library.tones.start()
            defer { Task { await node.stop() } }
            try await node.waitForState("paused")
            #expect(try await node.status("play") == "success")
            try await node.waitForAudio(atLeast: 1.5)
            let heard = ratioInDecibels(try node.wav().rms(from: 0.5, length: 0.8) / Self.toneRMS)
            #expect(abs(heard + 4) < 1, "heard \(heard) dB, not the album's -4")
        }

        @Test("at a gapless change the next track's gain starts with its first sound")
        func gaplessChange() async throws {
            let library = try await TaggedLibrary("loudness-gapless", tracks: [
                ("01 quiet.ogg", 440, 2, "Quiet", ["replaygain-track-gain=(double)-12"]),
                ("02 loud.ogg", 880, 4, "Loud", ["replaygain-track-gain=(double)0"]),
            ], separateAlbums: true)
            defer { library.tones.remove() }
            let node = try await library.tones.start()
            defer { Task { await node.stop() } }
            try await node.waitForState("paused")
            #expect(try await node.status("play") == "success")
            try await node.waitForAudio(atLeast: 4)
            let wav = try node.wav()
            let change = try #require(stride(from: 0.5, to: wav.duration - 0.2, by: 0.01).first {
                (wav.dominantFrequency(from: $0, length: 0.05) ?? 0) > 660
            })
            let before = ratioInDecibels(wav.rms(from: change - 0.5, length: 0.4) / Self.toneRMS)
            let first = ratioInDecibels(wav.rms(from: change + 0.05, length: 0.02) / Self.toneRMS)
            let after = ratioInDecibels(wav.rms(from: change + 0.3, length: 0.4) / Self.toneRMS)
            #expect(abs(before + 12) < 1 && abs(after) < 1, "before \(before) dB, after \(after) dB")
            #expect(abs(first) < 1, "the next track's first 70 ms at \(first) dB: its gain came late")
        }

        @Test("no gain drives a full-scale track past full scale: a +6 dB tag without a peak plays it as it is")
        func peakLimit() async throws {
            let library = try await TaggedLibrary(
                "loudness-peak", tracks: [("01 full.ogg", 440, 6, "Full", ["replaygain-track-gain=(double)6"])], amplitude: 1)
            defer { library.tones.remove() }
            let node = try await library.tones.start()
            defer { Task { await node.stop() } }
            try await node.waitForState("paused")
            #expect(try await node.status("play") == "success")
            try await node.waitForAudio(atLeast: 1.5)
            let wav = try node.wav()
            let heard = ratioInDecibels(wav.rms(from: 0.5, length: 0.8) / (1 / 2.squareRoot()))
            #expect(abs(heard) < 0.5, "a full-scale sine heard at \(heard) dB: clipped or lowered")
        }
    }
}

/// A library of tone tracks with tags of their own (ReplayGain among them), in path order.
struct TaggedLibrary {
    var tones: ToneLibrary

    init(_ label: String, tracks: [(name: String, frequency: Int, seconds: Double, title: String, tags: [String])],
         amplitude: Double = 0.5, separateAlbums: Bool = false) async throws {
        tones = try await ToneLibrary(label, tones: [])
        for track in tracks {
            // One album unless asked otherwise: then each its own, so track gains apply.
            var tone = ToneTrack(fileName: track.name, frequency: track.frequency, seconds: track.seconds, title: track.title,
                                 album: separateAlbums ? "Album \(track.title)" : "Test Album")
            tone.amplitude = amplitude
            tone.extraTags = track.tags
            tones.files.append(try await AudioFixtures.writeTone(tone, in: tones.library))
        }
    }
}
