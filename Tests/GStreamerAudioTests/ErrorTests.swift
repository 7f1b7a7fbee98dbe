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

        @Test("a wav sink in a missing directory is refused up front")
        func badSink() {
            #expect(throws: AudioError.self) { try GStreamerEngine(sink: "wav:/nonexistent/dir/out.wav") }
            #expect(throws: AudioError.self) { try GStreamerEngine(sink: "nosuchsink ! alsonot") }
        }
    }
}

/// A TCP port on 127.0.0.1 that nothing listens on: bound by us, then closed.
func closedPort() throws -> Int { try MosquittoBroker.freePort() }
