import Foundation
import GStreamerAudio
import MediaNodeTesting
import Playback
import Testing

extension GStreamerAudioTests {
    @Suite("Bad items")
    struct ErrorTests {
        enum BadItem: String, CaseIterable, CustomTestStringConvertible {
            case missing, corrupt, deadURL
            var testDescription: String { rawValue }

            func uri(in directory: URL) throws -> String {
                switch self {
                case .missing: return directory.appendingPathComponent("nowhere.ogg").path
                case .corrupt:
                    let url = directory.appendingPathComponent("noise.ogg")
                    try Data((0..<20_000).map { _ in UInt8.random(in: 0...255) }).write(to: url)
                    return url.path
                case .deadURL: return "http://127.0.0.1:\(try closedPort())/x.ogg"
                }
            }
        }

        @Test("a bad item reports an item error with its token and the next load still plays",
              arguments: BadItem.allCases)
        func badItem(_ item: BadItem) async throws {
            let harness = try EngineHarness("error")
            defer { harness.removeFiles() }
            let bad = PlaybackToken(1), good = PlaybackToken(2)
            // A file that cannot even be opened is refused by load itself; anything found later arrives as a fact.
            do {
                try await harness.engine.load(uri: try item.uri(in: harness.directory), token: bad, startAt: nil)
                let error = try await harness.facts.wait("an error", timeout: 10) { $0.isError }
                guard case .error(let token, let audioError) = error else { return }
                #expect(token == bad)
                #expect(audioError.kind == .item, "\(audioError)")
            } catch let refused as AudioError {
                #expect(item == .missing, "\(item) refused by load: \(refused)")
                #expect(refused.kind == .item)
            }

            try await harness.loadAndPlay(try harness.tone(440, seconds: 0.5), token: good)
            try await harness.facts.wait(for: .endOfStream(good), timeout: 5)
            #expect(try harness.wav().duration > 0.3)
            #expect(!harness.facts.all.contains { $0.isError && $0.token == good })
        }

        @Test("a bad item named as the gapless next still lets the current one end",
              arguments: BadItem.allCases)
        func badNextItem(_ item: BadItem) async throws {
            let harness = try EngineHarness("bad-next")
            defer { harness.removeFiles() }
            let current = PlaybackToken(1), next = PlaybackToken(2)
            // Long enough not to be read whole during preroll, so the switch happens while it plays.
            let tone = try await harness.tone(440, seconds: 2.5)
            try await harness.engine.load(uri: tone.path, token: current, startAt: nil)
            await harness.engine.preloadNext(uri: try item.uri(in: harness.directory), token: next)
            try await harness.facts.wait(for: .stateChanged(.paused, current))
            try await harness.engine.play()

            let error = try await harness.facts.wait("the next item's error", timeout: 10) { $0.isError }
            #expect(error.token == next, "the error names the item that failed: \(error)")
            try await harness.facts.wait(for: .endOfStream(current), timeout: 10)
            let wav = try harness.wav()
            #expect(abs(wav.duration - 2.5) < 0.25, "the current item played whole: \(wav.duration) s")
            #expect(!harness.facts.all.contains(.streamStarted(next)))

            // The engine is still usable for the next load.
            let after = PlaybackToken(3)
            try await harness.loadAndPlay(try harness.tone(880, seconds: 0.5), token: after)
            try await harness.facts.wait(for: .endOfStream(after), timeout: 5)
        }

        @Test("a wav sink in a missing directory is refused up front")
        func badSink() {
            #expect(throws: AudioError.self) { try GStreamerEngine(sink: "wav:/nonexistent/dir/out.wav") }
            #expect(throws: AudioError.self) { try GStreamerEngine(sink: "nosuchsink ! alsonot") }
        }
    }
}

/// A TCP port on 127.0.0.1 that nothing listens on: bound by us, then closed.
func closedPort() throws -> Int { try MosquittoBroker.freePort() }
