import Foundation
@testable import GStreamerAudio
import MediaNodeTesting
import Playback
import Synchronization
import Testing

/// The parent of every engine suite. They run beside each other and beside the rest of the suite, each
/// test on threads of its own (`.ownThreads`), so that its sleeps and waits keep time however busy the
/// shared pool is; their timing checks allow for a loaded two-core machine.
@Suite("GStreamer audio engine", .ownThreads)
struct GStreamerAudioTests {}

struct FactTimeout: Error, CustomStringConvertible {
    var waitingFor: String
    var seen: [AudioFact]
    var description: String { "timed out waiting for \(waitingFor); facts so far: \(seen)" }
}

/// Collects the engine's facts as they come, so a test can wait for one and inspect the whole history.
final class FactRecorder: Sendable {
    private final class Storage: Sendable {
        let facts = Mutex<[AudioFact]>([])
        let finished = Mutex(false)
    }
    private let storage = Storage()

    init(_ stream: AsyncStream<AudioFact>) {
        Task { [storage] in
            for await fact in stream { storage.facts.withLock { $0.append(fact) } }
            storage.finished.withLock { $0 = true }
        }
    }

    var all: [AudioFact] { storage.facts.withLock { $0 } }
    /// The engine finished its facts stream.
    var isFinished: Bool { storage.finished.withLock { $0 } }

    /// Forgets the history, so a long-running test measures the engine's memory, not the log's.
    func clear() { storage.facts.withLock { $0.removeAll() } }

    /// Waits until a fact matching `predicate` arrives (or has arrived) and returns it.
    @discardableResult
    func wait(_ what: String, timeout: Double = 10, _ predicate: (AudioFact) -> Bool) async throws -> AudioFact {
        let deadline = ContinuousClock.now + .milliseconds(Int(timeout * 1000))
        while ContinuousClock.now < deadline {
            if let fact = all.first(where: predicate) { return fact }
            try await Task.sleep(for: .milliseconds(10))
        }
        // A sleep that overran the deadline must not hide a fact that arrived meanwhile.
        let seen = all
        if let fact = seen.first(where: predicate) { return fact }
        throw FactTimeout(waitingFor: what, seen: seen)
    }

    @discardableResult
    func wait(for fact: AudioFact, timeout: Double = 10) async throws -> AudioFact {
        try await wait("\(fact)", timeout: timeout) { $0 == fact }
    }
}

/// One engine rendering into a WAV file in a temporary directory, with generated tones.
struct EngineHarness {
    let directory: URL
    let wavURL: URL
    let engine: GStreamerEngine
    let facts: FactRecorder

    init(_ label: String) throws {
        directory = try AudioFixtures.makeTemporaryDirectory(label)
        wavURL = directory.appendingPathComponent("out.wav")
        engine = try GStreamerEngine(sink: "wav:\(wavURL.path)")
        facts = FactRecorder(engine.facts)
    }

    /// A tone file; `frequency` tells tracks apart in the rendered audio.
    func tone(_ frequency: Int, seconds: Double) async throws -> URL {
        try await AudioFixtures.writeTone(
            ToneTrack(fileName: "tone-\(frequency)-\(seconds).ogg", frequency: frequency, seconds: seconds,
                      title: "Tone \(frequency)"),
            in: directory)
    }

    /// Loads, waits for the preroll, plays and waits until the engine says it plays.
    func loadAndPlay(_ url: URL, token: PlaybackToken, startAt: Double? = nil) async throws {
        try await engine.load(uri: url.path, token: token, startAt: startAt)
        try await facts.wait(for: .stateChanged(.paused, token))
        try await engine.play()
        try await facts.wait(for: .stateChanged(.playing, token))
    }

    func wav() throws -> WAVFile { try WAVFile(contentsOf: wavURL) }

    /// Waits until playbin has opened the successor behind the playing item (its about-to-finish, about a
    /// second before the item's end for a local file): from then on a flushing seek would land in the
    /// successor. Acting on this, not on a guess of the clock, leaves a test the whole second to act in,
    /// however late a loaded machine wakes it.
    func waitUntilSuccessorOpened(timeout: Double = 10) async throws {
        let deadline = ContinuousClock.now + .milliseconds(Int(timeout * 1000))
        while await !engine.isSwitchPending {
            guard ContinuousClock.now < deadline else {
                throw FactTimeout(waitingFor: "playbin to open the successor", seen: facts.all)
            }
            try await Task.sleep(for: .milliseconds(5))
        }
    }

    /// The WAV once it holds `seconds` of rendered audio. The sink renders in real time, so on a busy
    /// machine this takes longer than the audio lasts; the limit only keeps a stalled pipeline from
    /// hanging the test.
    func wav(renderedAtLeast seconds: Double, limit: Double = 10) async throws -> WAVFile {
        let started = ContinuousClock.now
        while true {
            let file = try wav()
            if file.duration >= seconds || ContinuousClock.now - started > .seconds(limit) { return file }
            try await sleep(seconds: 0.05)
        }
    }

    /// Removes the test's files. The engine releases its pipeline when the last reference goes; tests of
    /// `shutdown` call it themselves.
    func removeFiles() {
        try? FileManager.default.removeItem(at: directory)
    }
}

extension AudioFact {
    /// The load that caused the fact; nil for facts of the output itself.
    var token: PlaybackToken? {
        switch self {
        case .stateChanged(_, let token), .streamStarted(let token), .endOfStream(let token),
             .error(let token, _), .tags(let token, _), .duration(let token, _), .buffering(let token, _):
            token
        case .focusChanged, .outputLost, .outputRestored:
            nil
        }
    }

    var isError: Bool { if case .error = self { true } else { false } }
}

func sleep(seconds: Double) async throws {
    try await Task.sleep(for: .milliseconds(Int(seconds * 1000)))
}
