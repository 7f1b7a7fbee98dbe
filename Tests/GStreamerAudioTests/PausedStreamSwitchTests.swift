import Foundation
import GStreamerAudio
import MediaNodeTesting
import Playback
import Testing

extension GStreamerAudioTests {
    @Suite("Audio streams chosen while paused")
    struct PausedStreamSwitchTests {
        /// Once hung the engine for good: switching playbin's selector while paused left the old stream's
        /// decoder thread blocked on the full output queue, and the next flushing seek waited on it forever.
        /// Whether that happened depended on which stream the file lists first, so both directions are tried.
        @Test("a stream chosen right after pause survives a seek before play and is heard once playing, both ways",
              .timeLimit(.minutes(1)))
        func chosenWhilePausedThenSeek() async throws {
            let harness = try EngineHarness("paused-streams")
            defer { harness.removeFiles() }
            let file = try await AudioFixtures.writeMultiLanguage(
                streams: [("en", 440), ("de", 880)], seconds: 8, in: harness.directory)
            try await harness.loadAndPlay(file, token: PlaybackToken(1))
            let streams = await harness.engine.audioStreams()
            #expect(streams.map(\.index) == [0, 1])
            let tone = { (index: Int) in streams.first { $0.index == index }?.languageTag == "de" ? 880.0 : 440.0 }
            var active = try #require(streams.first { $0.isActive }).index
            try await sleep(seconds: 0.5)

            for (round, seekTo) in [1.0, 3.0].enumerated() {
                let chosen = 1 - active
                // No wait between the pause and the choice: the pause may still be settling.
                try await harness.engine.pause()
                try await harness.engine.selectAudioStream(chosen)
                #expect(await harness.engine.audioStreams().filter(\.isActive).map(\.index) == [chosen],
                        "round \(round): the choice is reported before play")
                try await harness.engine.seek(to: seekTo)
                let reported = await harness.engine.position()
                let position = try #require(reported)
                #expect(abs(position - seekTo) < 0.2, "round \(round): paused at \(position) s after the seek")

                let renderedBefore = try harness.wav().duration
                try await harness.engine.play()
                let wav = try await harness.wav(renderedAtLeast: renderedBefore + 0.6)
                let heard = try #require(wav.dominantFrequency(from: wav.duration - 0.3, length: 0.25))
                #expect(abs(heard - tone(chosen)) < 15, "round \(round): heard \(heard) Hz, expected \(tone(chosen))")
                #expect(await harness.engine.audioStreams().filter(\.isActive).map(\.index) == [chosen])
                active = chosen
            }
        }
    }
}
