import Foundation
import GStreamerAudio
import MediaNodeTesting
import Playback
import Testing

extension GStreamerAudioTests {
    @Suite("Gapless switches and load tokens")
    struct GaplessAndTokenTests {
        @Test("a preloaded next item follows without a gap and both streams report their start")
        func gapless() async throws {
            let harness = try EngineHarness("gapless")
            defer { harness.removeFiles() }
            // Long enough not to be read whole during preroll: a shorter item can reach about-to-finish before
            // preloadNext names its successor (see the engine's notes on load).
            let first = try await harness.tone(440, seconds: 3.0)
            let second = try await harness.tone(880, seconds: 1.0)
            try await harness.engine.load(uri: first.path, token: PlaybackToken(1), startAt: nil)
            await harness.engine.preloadNext(uri: second.path, token: PlaybackToken(2))
            try await harness.facts.wait(for: .stateChanged(.paused, PlaybackToken(1)))
            try await harness.engine.play()
            try await harness.facts.wait(for: .endOfStream(PlaybackToken(2)), timeout: 10)

            let facts = harness.facts.all
            #expect(facts.contains(.streamStarted(PlaybackToken(1))))
            #expect(facts.contains(.streamStarted(PlaybackToken(2))))
            #expect(!facts.contains(.endOfStream(PlaybackToken(1))), "a gapless switch is not an end of stream")
            let wav = try harness.wav()
            #expect(abs(wav.duration - 4.0) < 0.15, "rendered \(wav.duration) s")
            let a = try #require(wav.dominantFrequency(from: 2.2, length: 0.6))
            let b = try #require(wav.dominantFrequency(from: 3.2, length: 0.6))
            #expect(abs(a - 440) < 10 && abs(b - 880) < 15, "heard \(a) Hz then \(b) Hz")
            let gap = wav.longestSilence(from: 0.05, length: wav.duration - 0.1)
            #expect(gap < 0.005, "silent for \(gap) s between the tracks")
        }

        @Test("an item read whole during its preroll still switches gaplessly to the next named with its load")
        func gaplessAfterShortItem() async throws {
            let harness = try EngineHarness("gapless-short")
            defer { harness.removeFiles() }
            let first = try await harness.tone(440, seconds: 0.4)
            let second = try await harness.tone(880, seconds: 1.0)
            try await harness.engine.load(uri: first.path, token: PlaybackToken(1), startAt: nil,
                                          next: NextItem(uri: second.path, token: PlaybackToken(2)))
            try await harness.facts.wait(for: .stateChanged(.paused, PlaybackToken(1)))
            try await harness.engine.play()
            try await harness.facts.wait(for: .endOfStream(PlaybackToken(2)), timeout: 10)

            let facts = harness.facts.all
            #expect(facts.contains(.streamStarted(PlaybackToken(2))))
            #expect(!facts.contains(.endOfStream(PlaybackToken(1))), "a gapless switch is not an end of stream")
            let wav = try harness.wav()
            #expect(abs(wav.duration - 1.4) < 0.15, "rendered \(wav.duration) s")
            let gap = wav.longestSilence(from: 0.05, length: wav.duration - 0.1)
            #expect(gap < 0.005, "silent for \(gap) s between the tracks")
        }

        @Test("the next item keeps a rate chosen for the one before")
        func gaplessKeepsRate() async throws {
            let harness = try EngineHarness("gapless-rate")
            defer { harness.removeFiles() }
            // As the controller does: the next item is named right after the load, and the first item is long
            // enough not to be read whole during preroll (a shorter one can reach about-to-finish first).
            let first = try await harness.tone(440, seconds: 8.0)
            let second = try await harness.tone(880, seconds: 2.0)
            try await harness.engine.load(uri: first.path, token: PlaybackToken(1), startAt: nil)
            await harness.engine.preloadNext(uri: second.path, token: PlaybackToken(2))
            try await harness.facts.wait(for: .stateChanged(.paused, PlaybackToken(1)))
            try await harness.engine.play()
            try await harness.engine.setRate(2.0)
            try await harness.facts.wait(for: .endOfStream(PlaybackToken(2)), timeout: 15)

            // 8 s + 2 s at double speed: about 5 s rendered (6 s if the second item fell back to 1.0).
            let wav = try harness.wav()
            #expect(abs(wav.duration - 5.0) < 0.4, "rendered \(wav.duration) s")
            let b = try #require(wav.dominantFrequency(from: wav.duration - 0.6, length: 0.5))
            #expect(abs(b - 880) < 20, "heard \(b) Hz")
        }

        @Test("facts after a new load never carry an earlier token")
        func staleTokens() async throws {
            let harness = try EngineHarness("tokens")
            defer { harness.removeFiles() }
            let long = try await harness.tone(440, seconds: 5)
            let short = try await harness.tone(660, seconds: 0.5)
            try await harness.loadAndPlay(long, token: PlaybackToken(1))
            // Preloaded for item 1, then abandoned by a new load before item 1 ends.
            await harness.engine.preloadNext(uri: short.path, token: PlaybackToken(2))
            try await harness.engine.load(uri: short.path, token: PlaybackToken(3), startAt: nil)
            try await harness.engine.play()
            try await harness.facts.wait(for: .endOfStream(PlaybackToken(3)), timeout: 5)
            try await sleep(seconds: 0.3)

            let facts = harness.facts.all
            let loading = try #require(facts.firstIndex(of: .stateChanged(.loading, PlaybackToken(3))))
            let stale = facts[loading...].filter { $0.token != PlaybackToken(3) }
            #expect(stale.isEmpty, "stale facts: \(stale)")
            #expect(!facts.contains(.streamStarted(PlaybackToken(2))))
        }

        @Test("stop releases the item and reports idle")
        func stop() async throws {
            let harness = try EngineHarness("stop")
            defer { harness.removeFiles() }
            try await harness.loadAndPlay(try harness.tone(440, seconds: 3), token: PlaybackToken(1))
            await harness.engine.stop()
            try await harness.facts.wait(for: .stateChanged(.idle, PlaybackToken(1)))
            #expect(await harness.engine.position() == nil)
            await #expect(throws: AudioError.self) { try await harness.engine.play() }
            let size = try harness.wav().frameCount
            try await sleep(seconds: 0.3)
            #expect(try harness.wav().frameCount == size)
        }

        @Test("shutdown ends the facts and refuses further work")
        func shutdown() async throws {
            let harness = try EngineHarness("shutdown")
            defer { harness.removeFiles() }
            try await harness.loadAndPlay(try harness.tone(440, seconds: 3), token: PlaybackToken(1))
            await harness.engine.shutdown()
            try await sleep(seconds: 0.1)
            #expect(harness.facts.isFinished)
            await #expect(throws: AudioError.self) {
                try await harness.engine.load(uri: "/tmp/x.ogg", token: PlaybackToken(2), startAt: nil)
            }
            #expect(await harness.engine.position() == nil)
            #expect(try harness.wav().riffSizeIsConsistent)
        }

        @Test("tags and duration arrive stamped with the item's token")
        func tagsAndDuration() async throws {
            let harness = try EngineHarness("tags")
            defer { harness.removeFiles() }
            try await harness.loadAndPlay(try harness.tone(440, seconds: 1.5), token: PlaybackToken(7))
            let duration = try await harness.facts.wait("duration") {
                if case .duration(PlaybackToken(7), .some) = $0 { true } else { false }
            }
            if case .duration(_, let seconds?) = duration { #expect(abs(seconds - 1.5) < 0.05) }
            let tags = try await harness.facts.wait("title tag") {
                if case .tags(PlaybackToken(7), let tags) = $0 { tags.title != nil } else { false }
            }
            if case .tags(_, let tags) = tags {
                #expect(tags.title == "Tone 440" && tags.artist == "Test Artist")
            }
        }
    }
}
