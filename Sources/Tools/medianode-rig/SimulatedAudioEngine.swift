import Foundation
import Playback
import Synchronization

/// An audio output that plays nothing but keeps real time: positions advance with the wall clock at the
/// current rate, and an item that reaches its length ends (gaplessly into the preloaded one when there is
/// one, else with the end of the stream), reporting the facts GStreamer's engine reports for the same
/// calls. A rig runs hundreds of nodes, and GStreamer's pipelines would cost each node tens of MiB.
///
/// The lengths come from the catalog (the engine gets only URIs); an unknown URI fails to load, as a
/// missing file does.
final class SimulatedAudioEngine: AudioEngine {
    private struct Loaded {
        var uri: String
        var token: PlaybackToken
        var length: Double
        var started = false
    }

    private struct State {
        var loaded: Loaded?
        var preload: Loaded?
        var isPlaying = false
        var anchorPosition = 0.0
        var anchorTime = 0.0
        var rate = 1.0
        /// Grows with every change that moves the item's end, so a stale end does nothing.
        var generation = 0
        var isShutDown = false
    }

    let facts: AsyncStream<AudioFact>
    private let continuation: AsyncStream<AudioFact>.Continuation
    private let lengths: [String: Double]
    private let state = Mutex(State())

    /// - Parameter lengths: seconds of every URI the node may load.
    init(lengths: [String: Double]) {
        self.lengths = lengths
        (facts, continuation) = AsyncStream.makeStream()
    }

    private static func now() -> Double { Date().timeIntervalSince1970 }

    private static func position(_ state: State, now: Double) -> Double? {
        guard let loaded = state.loaded else { return nil }
        guard state.isPlaying else { return state.anchorPosition }
        return min(loaded.length, state.anchorPosition + (now - state.anchorTime) * state.rate)
    }

    /// Re-anchors at `now` and (re)arms the end of the current item. Call with the lock held.
    private func rearm(_ state: inout State, now: Double) {
        state.anchorPosition = Self.position(state, now: now) ?? 0
        state.anchorTime = now
        state.generation += 1
        guard state.isPlaying, let loaded = state.loaded, state.rate > 0 else {
            EndClock.shared.disarm(self)
            return
        }
        let remaining = max(0, (loaded.length - state.anchorPosition) / state.rate)
        EndClock.shared.arm(self, at: now + remaining, generation: state.generation)
    }

    /// Called by `EndClock` when the item armed with `generation` reaches its end.
    func itemEnded(generation: Int) {
        let now = Self.now()
        let fact = state.withLock { state -> AudioFact? in
            guard state.generation == generation, let loaded = state.loaded else { return nil }
            guard var next = state.preload else {
                state.anchorPosition = loaded.length
                state.isPlaying = false
                state.anchorTime = now
                state.generation += 1
                return .endOfStream(loaded.token)
            }
            next.started = true
            state.loaded = next
            state.preload = nil
            state.anchorPosition = 0
            state.anchorTime = now
            rearm(&state, now: now)
            return .streamStarted(next.token)
        }
        if let fact { continuation.yield(fact) }
    }

    private func item(_ uri: String, _ token: PlaybackToken) throws(AudioError) -> Loaded {
        guard let length = lengths[uri] else { throw AudioError(.item, "cannot open \(uri)") }
        return Loaded(uri: uri, token: token, length: length)
    }

    func load(uri: String, token: PlaybackToken, startAt seconds: Double?, next: NextItem?) async throws(AudioError) {
        let loaded = try item(uri, token)
        let preload = next.flatMap { try? item($0.uri, $0.token) }
        let now = Self.now()
        state.withLock { state in
            state.loaded = loaded
            state.preload = preload
            state.isPlaying = false
            state.rate = 1
            state.anchorPosition = min(seconds ?? 0, loaded.length)
            rearm(&state, now: now)
        }
        continuation.yield(.stateChanged(.paused, token))
    }

    func preloadNext(uri: String?, token: PlaybackToken?) async {
        let preload: Loaded? = if let uri, let token { try? item(uri, token) } else { nil }
        state.withLock { $0.preload = preload }
    }

    func play() async throws(AudioError) {
        let now = Self.now()
        let facts = try state.withLock { state throws(AudioError) -> [AudioFact] in
            guard let loaded = state.loaded else { throw AudioError(.engine, "nothing loaded") }
            state.anchorPosition = Self.position(state, now: now) ?? 0
            state.isPlaying = true
            rearm(&state, now: now)
            var facts: [AudioFact] = [.stateChanged(.playing, loaded.token)]
            if !loaded.started {
                state.loaded?.started = true
                facts.append(.streamStarted(loaded.token))
            }
            return facts
        }
        for fact in facts { continuation.yield(fact) }
    }

    func pause() async throws(AudioError) {
        _ = try await pauseAndSample()
    }

    func pauseAndSample() async throws(AudioError) -> PositionSample? {
        let now = Self.now()
        let (token, position) = try state.withLock { state throws(AudioError) -> (PlaybackToken, Double) in
            guard let loaded = state.loaded else { throw AudioError(.engine, "nothing loaded") }
            rearm(&state, now: now)
            state.isPlaying = false
            rearm(&state, now: now)
            return (loaded.token, state.anchorPosition)
        }
        continuation.yield(.stateChanged(.paused, token))
        return PositionSample(seconds: position, sampledAt: now)
    }

    func stop() async {
        let token = state.withLock { state -> PlaybackToken? in
            let token = state.loaded?.token
            state.generation += 1
            state.loaded = nil
            state.preload = nil
            state.isPlaying = false
            // Under the lock, as `rearm` arms: a play right after cannot lose its end to this.
            EndClock.shared.disarm(self)
            return token
        }
        if let token { continuation.yield(.stateChanged(.idle, token)) }
    }

    func seek(to seconds: Double) async throws(AudioError) {
        let now = Self.now()
        let landed = try state.withLock { state throws(AudioError) -> PlaybackToken? in
            guard let loaded = state.loaded else { throw AudioError(.engine, "nothing loaded") }
            state.anchorPosition = min(max(0, seconds), loaded.length)
            state.anchorTime = now
            rearm(&state, now: now)
            return state.isPlaying ? loaded.token : nil
        }
        // As the GStreamer pipeline does, playing resumes once prerolled at the new place.
        if let landed { continuation.yield(.stateChanged(.playing, landed)) }
    }

    func setRate(_ rate: Double) async throws(AudioError) {
        let now = Self.now()
        state.withLock { state in
            rearm(&state, now: now)
            state.rate = rate
            rearm(&state, now: now)
        }
    }

    func setOutputGain(_ gain: OutputGain) async {}

    func setItemGain(_ gain: ItemGain, for token: PlaybackToken) async {}

    func position() async -> Double? {
        let now = Self.now()
        return state.withLock { Self.position($0, now: now) }
    }

    func positionSample() async -> PositionSample? {
        let now = Self.now()
        return state.withLock { Self.position($0, now: now) }.map { PositionSample(seconds: $0, sampledAt: now) }
    }

    func audioStreams() async -> [AudioStreamOption] { [] }

    func selectAudioStream(_ index: Int) async throws(AudioError) {
        throw AudioError(.engine, "no audio stream \(index)")
    }

    func shutdown() async {
        state.withLock { state in
            state.generation += 1
            state.loaded = nil
            state.preload = nil
            state.isPlaying = false
            EndClock.shared.disarm(self)
        }
        continuation.finish()
    }
}
