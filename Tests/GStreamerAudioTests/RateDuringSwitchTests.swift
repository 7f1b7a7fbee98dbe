import Foundation
import GStreamerAudio
import MediaNodeTesting
import Playback
import Testing

extension GStreamerAudioTests {
    @Suite("Changing the rate while playbin has opened the next item")
    struct RateDuringSwitchTests {
        @Test("a rate change in the last second, after playbin opened the successor, speeds up the item's tail and then the successor")
        func rateInTheTail() async throws {
            let harness = try EngineHarness("rate-tail")
            defer { harness.removeFiles() }
            let first = try await harness.tone(880, seconds: 6)
            let second = try await harness.tone(440, seconds: 2)
            try await harness.engine.load(uri: first.path, token: PlaybackToken(1), startAt: nil,
                                          next: NextItem(uri: second.path, token: PlaybackToken(2)))
            try await harness.facts.wait(for: .stateChanged(.paused, PlaybackToken(1)))
            try await harness.engine.play()
            // About a second before the end playbin has read the whole item and opened the next one; the rest
            // is in its queues.
            try await harness.waitUntilSuccessorOpened()
            try await harness.engine.setRate(2.0)
            // The rate applies where the item was: still the first item, not the successor.
            let position = try #require(await harness.engine.position())
            #expect(position > 4.5 && position < 6.05, "at \(position) s after the rate change")
            #expect(!harness.facts.all.contains(.streamStarted(PlaybackToken(2))), "the successor had not started yet")
            try await harness.facts.wait(for: .endOfStream(PlaybackToken(2)), timeout: 10)
            #expect(!harness.facts.all.contains(.endOfStream(PlaybackToken(1))), "the switch is still gapless")

            // The first item's tone until its end, then the successor's whole 2 s at double speed: 1 s of
            // 440 Hz (scaletempo keeps the pitch). A rate change that landed in the successor seeks it to
            // its end (nothing of it is heard) or plays it at 1.0 (2 s of it).
            let wav = try harness.wav()
            let successor = try #require(wav.toneSpan(440), "the successor was never heard; \(wav.duration) s rendered")
            let heard = successor.end - successor.start
            #expect(abs(heard - 1.0) < 0.25, "heard \(heard) s of the 2 s successor at rate 2")
            let tail = wav.toneSpan(880, to: successor.start)
            #expect(tail.map { successor.start - $0.end } ?? 1 < 0.1, "the first item's tone ran up to the successor: \(String(describing: tail))")
        }
    }
}
