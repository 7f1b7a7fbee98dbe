import Foundation
import MediaJSON
import MediaNode
import MediaNodeTesting
import Testing

extension RealEngineCommandTests {
    /// Loudness the node measures itself, for files without tags, as a listener hears it in the WAV.
    @Suite("Loudness measured by the node")
    struct LoudnessMeasureTests {
        @Test("two untagged tracks 20 dB apart play within 1.5 dB of each other once measured; silence gets no loudness; a +60 dB tag is refused and the file measured")
        func measuredTracks() async throws {
            var library = try await ToneLibrary("loudness-measured", tones: [])
            defer { library.remove() }
            for (name, amplitude, tags) in [("01 loud.ogg", 0.5, [String]()), ("02 quiet.ogg", 0.05, []),
                                            ("03 silent.ogg", 0, []), ("04 absurd.ogg", 0.5, ["replaygain-track-gain=(double)60"])] {
                var tone = ToneTrack(fileName: name, frequency: 440, seconds: 8, title: name, album: name)
                tone.amplitude = amplitude
                tone.extraTags = tags
                library.files.append(try await AudioFixtures.writeTone(tone, in: library.library))
            }
            let node = try await library.start(configure: { $0.loudnessMeasurer = NodeProcess.binaryPath })
            defer { Task { await node.stop() } }
            try await node.waitForState("paused")

            // Measured in the background after the scan; the silent file last, so all are done by then.
            var loudness: [Double?] = []
            let deadline = Date().addingTimeInterval(60)
            while Date() < deadline {
                loudness = []
                for index in 0 ..< 4 {
                    let item = try await node.send("contentItem", #""identifier":"\#(library.identifier(index))""#)
                    loudness.append(item["data"]?["loudness"]?.numberValue)
                }
                if loudness[0] != nil, loudness[1] != nil, loudness[3] != nil { break }
                try await sleep(0.5)
            }
            let loud = try #require(loudness[0], "the loud track measured: \(loudness)")
            let quiet = try #require(loudness[1], "the quiet track measured: \(loudness)")
            #expect(abs(loud - quiet - 20) < 0.5, "measured \(loud) and \(quiet) LUFS")
            #expect(loudness[2] == nil, "silence has no loudness")
            #expect(abs((loudness[3] ?? -99) - loud) < 0.5, "the +60 dB tag refused, the file measured: \(loudness)")

            // Items are levelled at their load: the first was loaded before its measurement.
            #expect(try await node.status("play") == "success")
            #expect(try await node.status("nextTrack") == "success")
            let quietAt = node.renderedSeconds()
            try await node.waitForAudio(atLeast: quietAt + 1.5)
            let quietLevel = try node.wav().rms(from: quietAt + 0.6, length: 0.8)
            #expect(try await node.status("previousTrack") == "success")
            let loudAt = node.renderedSeconds()
            try await node.waitForAudio(atLeast: loudAt + 1.5)
            let loudLevel = try node.wav().rms(from: loudAt + 0.6, length: 0.8)
            let apart = ratioInDecibels(loudLevel / quietLevel)
            print(String(format: "loudness: measured %.2f and %.2f LUFS; heard %.2f dB apart", loud, quiet, apart))
            #expect(abs(apart) < 1.5, "heard \(apart) dB apart after levelling")
            #expect(await node.nowPlaying?["loudness"]?.numberValue.map { abs($0 - loud) < 0.1 } == true)
        }
    }
}
