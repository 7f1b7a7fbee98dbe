import Foundation
import GStreamerAudio
import MediaNodeTesting
import Playback
import Testing

extension GStreamerAudioTests {
    @Suite("Playback into a WAV file")
    struct PlaybackTests {
        @Test("two seconds of play render two seconds of the tone")
        func rendersTheTone() async throws {
            let harness = try EngineHarness("render")
            defer { harness.removeFiles() }
            let tone = try await harness.tone(440, seconds: 5)
            try await harness.engine.load(uri: tone.path, token: PlaybackToken(1), startAt: nil)
            try await harness.facts.wait(for: .stateChanged(.paused, PlaybackToken(1)))
            let began = Date()
            try await harness.engine.play()
            try await sleep(seconds: 2)
            try await harness.engine.pause()
            // What was played between the play call and the pause's return: 2 s, more on a loaded machine.
            let wall = Date().timeIntervalSince(began)
            try await sleep(seconds: 0.2)

            let wav = try harness.wav()
            #expect(wav.sampleRate == 44_100 && wav.channels == 2)
            #expect(wav.duration > 1.7 && wav.duration < wall + 0.3, "rendered \(wav.duration) s in \(wall) s")
            let frequency = try #require(wav.dominantFrequency(from: 0.5, length: 1.0))
            #expect(abs(frequency - 440) < 10, "heard \(frequency) Hz")
            let position = try #require(await harness.engine.position())
            #expect(abs(position - wav.duration) < 0.3, "position \(position), rendered \(wav.duration)")
        }

        @Test("pausing stops the WAV from growing and playing resumes it")
        func pauseStopsGrowth() async throws {
            let harness = try EngineHarness("pause")
            defer { harness.removeFiles() }
            try await harness.loadAndPlay(try harness.tone(550, seconds: 5), token: PlaybackToken(1))
            try await sleep(seconds: 0.6)
            try await harness.engine.pause()
            try await sleep(seconds: 0.3)
            let atPause = try harness.wav()
            try await sleep(seconds: 1.0)
            let later = try harness.wav()
            #expect(later.frameCount == atPause.frameCount)
            #expect(atPause.duration > 0.3)

            try await harness.engine.play()
            try await sleep(seconds: 0.6)
            let resumed = try harness.wav()
            #expect(resumed.duration > later.duration + 0.3, "grew \(resumed.duration - later.duration) s")
            #expect(resumed.riffSizeIsConsistent)
        }

        /// A pause that comes while playbin is still on its way to PLAYING (a phone call right after play) once
        /// lost to playbin finishing the play after it: the music went on under a node that said it was held.
        @Test("a pause right after play holds, however soon it comes, in every one of many rounds")
        func pauseRightAfterPlay() async throws {
            let harness = try EngineHarness("pause-after-play")
            defer { harness.removeFiles() }
            let tone = try await harness.tone(660, seconds: 30)
            var leaks: [String] = []
            for round in 0..<24 {
                let token = PlaybackToken(UInt64(round + 1))
                try await harness.engine.load(uri: tone.path, token: token, startAt: nil)
                // Half the rounds play while the load still prerolls, half once it has.
                if round % 2 == 1 { try await harness.facts.wait(for: .stateChanged(.paused, token)) }
                try await harness.engine.play()
                if round % 3 == 2 { try await sleep(seconds: 0.002) }
                try await harness.engine.pause()
                try await sleep(seconds: 0.15)
                let held = try harness.wav().duration
                try await sleep(seconds: 0.35)
                let grown = try harness.wav().duration - held
                if grown > 0.05 { leaks.append("round \(round): \(String(format: "%.3f", grown)) s heard while paused") }
            }
            #expect(leaks.isEmpty, "\(leaks)")
        }

        @Test("a flushing seek keeps the WAV valid and growing and moves the position")
        func seekKeepsTheFileValid() async throws {
            let harness = try EngineHarness("seek")
            defer { harness.removeFiles() }
            try await harness.loadAndPlay(try harness.tone(660, seconds: 8), token: PlaybackToken(1))
            try await sleep(seconds: 0.8)
            try await harness.engine.seek(to: 5.0)
            let afterSeek = try #require(await harness.engine.position())
            #expect(afterSeek >= 4.9 && afterSeek < 5.5, "position \(afterSeek)")
            let atSeek = try harness.wav()
            try await sleep(seconds: 0.8)
            let later = try harness.wav()

            #expect(later.riffSizeIsConsistent && later.declaredDataSize <= later.availableDataSize)
            #expect(later.duration > atSeek.duration + 0.5, "grew \(later.duration - atSeek.duration) s")
            let position = try #require(await harness.engine.position())
            #expect(position > 5.5, "position \(position)")
            let frequency = try #require(later.dominantFrequency(from: later.duration - 0.5, length: 0.4))
            #expect(abs(frequency - 660) < 12)
        }

        @Test("loading with a start position plays from there")
        func startPosition() async throws {
            let harness = try EngineHarness("start")
            defer { harness.removeFiles() }
            try await harness.loadAndPlay(try harness.tone(440, seconds: 3), token: PlaybackToken(1), startAt: 2.0)
            try await harness.facts.wait(for: .endOfStream(PlaybackToken(1)), timeout: 5)
            let wav = try harness.wav()
            #expect(abs(wav.duration - 1.0) < 0.3, "rendered \(wav.duration) s of the last second")
        }

        @Test("at rate 2.0 a track ends in half its duration at the same pitch")
        func doubleRate() async throws {
            let harness = try EngineHarness("rate")
            defer { harness.removeFiles() }
            let tone = try await harness.tone(660, seconds: 4)
            try await harness.engine.load(uri: tone.path, token: PlaybackToken(1), startAt: nil)
            try await harness.facts.wait(for: .stateChanged(.paused, PlaybackToken(1)))
            try await harness.engine.setRate(2.0)
            let started = ContinuousClock.now
            try await harness.engine.play()
            try await harness.facts.wait(for: .endOfStream(PlaybackToken(1)), timeout: 6)
            let elapsed = (ContinuousClock.now - started) / .seconds(1)

            // Under 3.5 s tells double speed from normal speed (4 s) with room for a loaded machine.
            #expect(elapsed > 1.5 && elapsed < 3.5, "took \(elapsed) s")
            let wav = try harness.wav()
            #expect(abs(wav.duration - 2.0) < 0.4, "rendered \(wav.duration) s")
            let frequency = try #require(wav.dominantFrequency(from: 0.4, length: 1.0))
            #expect(abs(frequency - 660) < 15, "heard \(frequency) Hz")
        }

        @Test("a rate change right after a seek keeps the new place")
        func rateRightAfterSeek() async throws {
            let harness = try EngineHarness("seek-rate")
            defer { harness.removeFiles() }
            try await harness.loadAndPlay(try harness.tone(550, seconds: 8), token: PlaybackToken(1))
            try await sleep(seconds: 0.5)
            // No wait between the two: the seek may still be prerolling when the rate change reads the
            // position it restarts from.
            try await harness.engine.seek(to: 6.0)
            try await harness.engine.setRate(2.0)
            let position = try #require(await harness.engine.position())
            #expect(position >= 5.9 && position < 6.6, "position \(position)")
            try await harness.facts.wait(for: .endOfStream(PlaybackToken(1)), timeout: 6)
            let wav = try harness.wav()
            // 0.5 s before the seek, then the last 2 s at double speed: about 1.5 s, not 4.5 s from the start.
            #expect(wav.duration < 2.5, "rendered \(wav.duration) s")
        }

        @Test("a seek of the previous item does not make a position read wait for the next item's slow start")
        func seekThenSlowLoad() async throws {
            let harness = try EngineHarness("seek-load")
            defer { harness.removeFiles() }
            let server = try await FaultHTTPServer()
            defer { server.stop() }
            let served = try await harness.tone(330, seconds: 2)
            await server.put("/slow.ogg", data: try Data(contentsOf: served), contentType: "audio/ogg")
            await server.inject([.stall(seconds: 4)], at: "/slow.ogg")
            try await harness.loadAndPlay(try harness.tone(550, seconds: 8), token: PlaybackToken(1))
            try await harness.engine.seek(to: 4.0)
            try await harness.engine.load(uri: server.url("/slow.ogg").absoluteString, token: PlaybackToken(2), startAt: nil)
            // Nothing of the new item has arrived, so there is no position yet; asking must not hang
            // the engine (and every command behind it) until the item's server answers.
            let asked = ContinuousClock.now
            _ = await harness.engine.position()
            let waited = (ContinuousClock.now - asked) / .seconds(1)
            #expect(waited < 1.5, "the position read waited \(waited) s")
        }

        @Test("volume zero renders silence")
        func volume() async throws {
            let harness = try EngineHarness("volume")
            defer { harness.removeFiles() }
            await harness.engine.setOutputGain(OutputGain(level: 0))
            try await harness.loadAndPlay(try harness.tone(440, seconds: 1), token: PlaybackToken(1))
            try await harness.facts.wait(for: .endOfStream(PlaybackToken(1)))
            let wav = try harness.wav()
            #expect(wav.duration > 0.7)
            #expect(wav.rms(from: 0, length: wav.duration) < 0.001)
        }
    }
}
