import Foundation
import GStreamerAudio
import MediaNodeTesting
import Playback
import Testing

extension GStreamerAudioTests {
    @Suite("Seeking while playbin has opened the next item")
    struct SeekDuringSwitchTests {
        @Test("a seek in the last second, after playbin opened the successor, plays the item from there and then the successor")
        func seekInTheTail() async throws {
            let harness = try EngineHarness("seek-tail")
            defer { harness.removeFiles() }
            let first = try await harness.tone(880, seconds: 6)
            let second = try await harness.tone(440, seconds: 1)
            try await harness.engine.load(uri: first.path, token: PlaybackToken(1), startAt: nil,
                                          next: NextItem(uri: second.path, token: PlaybackToken(2)))
            try await harness.facts.wait(for: .stateChanged(.paused, PlaybackToken(1)))
            try await harness.engine.play()
            // About a second before the end playbin has read the whole item and opened the next one; the rest
            // is in its queues.
            try await harness.waitUntilSuccessorOpened()
            // What was heard by the time the seek took effect, from the WAV: on a loaded machine the audio
            // starts late, and the item plays on until the engine's thread gets to the seek.
            try await harness.engine.seek(to: 1.0)
            let heardBeforeSeek = try harness.wav().duration
            let position = try #require(await harness.engine.position())
            #expect(abs(position - 1.0) < 0.2, "at \(position) s after the seek")
            // Had the successor started before the seek (a machine too slow to act in the item's last second),
            // the seek would rightly be the successor's: this says so rather than failing on the audio below.
            #expect(!harness.facts.all.contains(.streamStarted(PlaybackToken(2))), "the successor had not started yet")
            try await harness.facts.wait(for: .endOfStream(PlaybackToken(2)), timeout: 10)
            #expect(!harness.facts.all.contains(.endOfStream(PlaybackToken(1))), "the switch is still gapless")

            // What played up to the seek, then the item again from 1 s (5 s), then the successor (1 s). A lost
            // seek would leave at least 4 s less, one in the successor 5 s less.
            let wav = try harness.wav()
            #expect(abs(wav.duration - (heardBeforeSeek + 6)) < 0.6, "rendered \(wav.duration) s, \(heardBeforeSeek) s of it before the seek")
            let replayed = wav.dominantFrequency(from: heardBeforeSeek + 4, length: 0.5) ?? 0
            let next = wav.dominantFrequency(from: wav.duration - 0.7, length: 0.5) ?? 0
            #expect(abs(replayed - 880) < 15 && abs(next - 440) < 10, "heard \(replayed) Hz, then \(next) Hz")
        }
    }
}
