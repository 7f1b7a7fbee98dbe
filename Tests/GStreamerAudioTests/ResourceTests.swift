import Foundation
import GStreamerAudio
import MediaNodeTesting
import Playback
import Testing

extension GStreamerAudioTests {
    @Suite("Resources, streams and sinks")
    struct ResourceTests {
        @Test("a hundred items in a row do not make the process keep growing")
        func noLeak() async throws {
            // In a process of its own (an exit test): the tests running beside this one in the test process
            // would grow its memory too.
            let child = try await #require(processExitsWith: .success, observing: [\.standardErrorContent]) {
                let harness = try EngineHarness("leak")
                defer { harness.removeFiles() }
                let tone = try await harness.tone(440, seconds: 0.2)
                var rssAfter20 = 0
                for index in 1...100 {
                    let token = PlaybackToken(UInt64(index))
                    try await harness.loadAndPlay(tone, token: token)
                    try await harness.facts.wait(for: .streamStarted(token))
                    await harness.engine.stop()
                    try await harness.facts.wait(for: .stateChanged(.idle, token))
                    harness.facts.clear()
                    if index == 20 { rssAfter20 = residentKiB() }
                }
                let growth = residentKiB() - rssAfter20
                FileHandle.standardError.write(Data("RSS grew \(growth) KiB from item 20 (\(rssAfter20) KiB) to 100\n".utf8))
                // Warm-up and allocator noise stay well under this (about 0.6 MiB here); a leaked decoder
                // chain, buffer or message per item would not.
                if growth >= 2 * 1024 { exit(1) }
            }
            print(String(decoding: child.standardErrorContent, as: UTF8.self))
        }

        @Test("the audio streams of a file are listed with their languages and can be switched")
        func audioStreams() async throws {
            let harness = try EngineHarness("streams")
            defer { harness.removeFiles() }
            let file = try await AudioFixtures.writeMultiLanguage(
                streams: [("en", 440), ("de", 880)], seconds: 4, in: harness.directory)
            try await harness.engine.load(uri: file.path, token: PlaybackToken(1), startAt: nil)
            try await harness.facts.wait(for: .stateChanged(.paused, PlaybackToken(1)))
            // oggmux numbers streams at random, so their order in the file varies from run to run.
            let streams = await harness.engine.audioStreams()
            #expect(streams.map(\.index) == [0, 1])
            #expect(Set(streams.compactMap(\.languageTag)) == ["en", "de"])
            #expect(streams.filter(\.isActive).map(\.index) == [0])
            let german = try #require(streams.first { $0.languageTag == "de" })
            let other = streams.first { $0.languageTag != "de" }!

            // Switch away from the first stream, whichever language it is, and check the tone follows.
            let target = german.isActive ? other : german
            let expected = target.languageTag == "de" ? 880.0 : 440.0
            try await harness.engine.play()
            try await sleep(seconds: 0.5)
            let beforeSwitch = try harness.wav().duration
            try await harness.engine.selectAudioStream(target.index)
            // Two seconds on: what was queued past the selector before the switch plays out first, and on a
            // loaded machine that can be most of a second.
            let wav = try await harness.wav(renderedAtLeast: beforeSwitch + 2.0)
            let frequency = try #require(wav.dominantFrequency(from: wav.duration - 0.5, length: 0.4))
            #expect(abs(frequency - expected) < 15, "heard \(frequency) Hz, expected \(expected)")
            #expect(await harness.engine.audioStreams().filter(\.isActive).map(\.index) == [target.index])

            // Chosen while paused, the switch is heard as soon as play resumes.
            try await harness.engine.pause()
            try await harness.engine.selectAudioStream(streams.first { $0.index != target.index }!.index)
            let beforePlay = try harness.wav().duration
            try await harness.engine.play()
            let back = try await harness.wav(renderedAtLeast: beforePlay + 0.6)
            let backFrequency = try #require(back.dominantFrequency(from: back.duration - 0.3, length: 0.25))
            #expect(abs(backFrequency - (1320 - expected)) < 15, "heard \(backFrequency) Hz after switching back")
            await #expect(throws: AudioError.self) { try await harness.engine.selectAudioStream(5) }
        }

        @Test("the auto sink without a sound card still plays in real time")
        func automaticSink() async throws {
            let engine = try GStreamerEngine(sink: "auto")
            let facts = FactRecorder(engine.facts)
            let directory = try AudioFixtures.makeTemporaryDirectory("auto")
            defer { try? FileManager.default.removeItem(at: directory) }
            let tone = try await AudioFixtures.writeTone(ToneTrack(fileName: "t.ogg", frequency: 440, seconds: 1, title: "t"),
                                                   in: directory)
            try await engine.load(uri: tone.path, token: PlaybackToken(1), startAt: nil)
            try await facts.wait(for: .stateChanged(.paused, PlaybackToken(1)))
            let started = ContinuousClock.now
            try await engine.play()
            try await facts.wait(for: .endOfStream(PlaybackToken(1)), timeout: 5)
            let elapsed = (ContinuousClock.now - started) / .seconds(1)
            #expect(elapsed > 0.8, "a one-second item ended after \(elapsed) s")
            await engine.shutdown()
        }

        @Test("sink descriptions parse as the command line writes them")
        func sinkDescriptions() throws {
            #expect(try AudioSinkDescription(parsing: "auto") == .automatic)
            #expect(try AudioSinkDescription(parsing: "fake") == .fake)
            #expect(try AudioSinkDescription(parsing: "wav:/tmp/a b.wav") == .wav(path: "/tmp/a b.wav"))
            #expect(try AudioSinkDescription(parsing: "pulsesink device=x") == .pipeline("pulsesink device=x"))
            #expect(try AudioSinkDescription(parsing: "pulse") == .soundServer(sink: nil))
            #expect(try AudioSinkDescription(parsing: "pulse:car") == .soundServer(sink: "car"))
            #expect(try AudioSinkDescription(parsing: "pulse:car").description == "pulse:car")
            #expect(throws: AudioError.self) { try AudioSinkDescription(parsing: "pulse:") }
            #expect(throws: AudioError.self) { try AudioSinkDescription(parsing: " ") }
            #expect(throws: AudioError.self) { try AudioSinkDescription(parsing: "wav:") }
        }
    }
}

/// The process's resident set in KiB, from /proc/self/statm (pages).
func residentKiB() -> Int {
    guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
    let fields = text.split(separator: " ")
    guard fields.count > 1, let pages = Int(fields[1]) else { return 0 }
    return pages * Int(sysconf(Int32(_SC_PAGESIZE))) / 1024
}
