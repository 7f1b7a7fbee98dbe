import Playback
import Synchronization

/// The audio engine's in-memory twin: records every call, keeps a position that advances with a
/// (manual) clock, and lets a test script what the real engine would report — ends of items, errors,
/// tags, a lost output — and which URIs fail to load.
///
/// Safe to use from any thread; facts go out on `facts` in the order they happen.
public final class InMemoryAudioEngine: AudioEngine {
    /// One call the core made.
    public enum Call: Sendable, Equatable {
        case load(uri: String, token: PlaybackToken, startAt: Double?, next: NextItem? = nil)
        case preloadNext(uri: String?, token: PlaybackToken?)
        case play, pause, stop
        case seek(Double)
        case setRate(Double)
        /// The output amplitude of an item with no gain of its own (see `OutputGain.amplitude`).
        case setVolume(Double)
        case setItemGain(ItemGain, PlaybackToken)
        case selectAudioStream(Int)
        case shutdown
    }

    private struct Loaded {
        var uri: String
        var token: PlaybackToken
        var started = false
    }

    private struct State {
        var calls: [Call] = []
        var loaded: Loaded?
        var preload: Loaded?
        var isPlaying = false
        var anchorPosition = 0.0
        var anchorTime = 0.0
        var rate = 1.0
        var volume = 1.0
        var outputGain = OutputGain()
        var itemGains: [PlaybackToken: ItemGain] = [:]
        var failingURIs: Set<String> = []
        var deviceLost = false
        var streams: [AudioStreamOption] = []
        var emittedFactCount = 0
        /// Whether a played item reports its first sound only when `startCurrentItem()` says so.
        var holdsStarts = false
        /// How long each seek blocks before it returns, if set (see `stallSeeks`).
        var seekStall: Duration?
        /// Whether a seek while playing lands (reports playing at the new place) only on `landSeek()`.
        var holdsSeekLandings = false
    }

    public let facts: AsyncStream<AudioFact>
    private let continuation: AsyncStream<AudioFact>.Continuation
    private let clock: any PlaybackClock
    private let state = Mutex(State())

    public init(clock: any PlaybackClock) {
        self.clock = clock
        (facts, continuation) = AsyncStream.makeStream()
    }

    // MARK: - What happened

    public var calls: [Call] { state.withLock { $0.calls } }
    public var loadedURI: String? { state.withLock { $0.loaded?.uri } }
    public var currentToken: PlaybackToken? { state.withLock { $0.loaded?.token } }
    public var preloadedURI: String? { state.withLock { $0.preload?.uri } }
    public var preloadedToken: PlaybackToken? { state.withLock { $0.preload?.token } }
    public var isPlaying: Bool { state.withLock { $0.isPlaying } }
    public var rate: Double { state.withLock { $0.rate } }
    public var volume: Double { state.withLock { $0.volume } }
    /// The session's factors of the output gain, as the core last set them.
    public var outputGain: OutputGain { state.withLock { $0.outputGain } }
    /// The gain the core gave the load or preload with this token, if any.
    public func itemGain(for token: PlaybackToken) -> ItemGain? { state.withLock { $0.itemGains[token] } }
    /// How many facts went out; with the controller's handled count, tells when all were consumed.
    public var emittedFactCount: Int { state.withLock { $0.emittedFactCount } }

    public func clearCalls() {
        state.withLock { $0.calls = [] }
    }

    // MARK: - Scripting

    /// Loads of `uri` throw an item error from now on.
    public func failLoading(_ uri: String) {
        state.withLock { _ = $0.failingURIs.insert(uri) }
    }

    /// Reports `fact` as if the engine had observed it.
    public func emit(_ fact: AudioFact) {
        state.withLock { $0.emittedFactCount += 1 }
        continuation.yield(fact)
    }

    /// The current item reaches its end: the preloaded item starts gaplessly if there is one,
    /// else the engine reports the end of the stream.
    public func finishCurrentItem() {
        let fact = state.withLock { state -> AudioFact? in
            guard let loaded = state.loaded else { return nil }
            guard var next = state.preload else { return .endOfStream(loaded.token) }
            next.started = true
            state.loaded = next
            state.preload = nil
            state.anchorPosition = 0
            state.anchorTime = clock.now()
            return .streamStarted(next.token)
        }
        if let fact { emit(fact) }
    }

    /// From now on a played item is slow to start, like a stream still buffering: it reports its first
    /// sound only when `startCurrentItem()` is called (false: at once, on play).
    public func holdStarts(_ holds: Bool) {
        state.withLock { $0.holdsStarts = holds }
    }

    /// From now on every seek blocks for `duration` before it returns, as GStreamer's does when a state
    /// change never completes and the engine waits out its timeout (nil: seeks return at once).
    public func stallSeeks(for duration: Duration?) {
        state.withLock { $0.seekStall = duration }
    }

    /// From now on a seek while playing is slow to land, like one waiting on a slow server: the engine
    /// reports playing at the new place only when `landSeek()` is called (false: as the seek returns).
    public func holdSeekLandings(_ holds: Bool) {
        state.withLock { $0.holdsSeekLandings = holds }
    }

    /// A seek held by `holdSeekLandings` has prerolled at its new place: the audio flows from there.
    public func landSeek() {
        let token = state.withLock { state in state.isPlaying ? state.loaded?.token : nil }
        if let token { emit(.stateChanged(.playing, token)) }
    }

    /// The current item, held by `holdStarts`, really produces audio now.
    public func startCurrentItem() {
        let token = state.withLock { state -> PlaybackToken? in
            guard let loaded = state.loaded, !loaded.started, state.isPlaying else { return nil }
            state.loaded?.started = true
            return loaded.token
        }
        if let token { emit(.streamStarted(token)) }
    }

    /// The current item fails while playing (a dead stream, corrupt data).
    public func failCurrentItem(_ message: String = "stream broke off") {
        guard let token = currentToken else { return }
        emit(.error(token, AudioError(.item, message)))
    }

    /// The audio output disappears: playback halts, and play throws until `restoreDevice()`.
    public func loseDevice() {
        let token = state.withLock { state -> PlaybackToken? in
            state.deviceLost = true
            state.anchorPosition = Self.position(state, now: clock.now()) ?? 0
            state.anchorTime = clock.now()
            state.isPlaying = false
            return state.loaded?.token
        }
        if let token { emit(.error(token, AudioError(.device, "audio output disappeared"))) }
    }

    public func restoreDevice() {
        state.withLock { $0.deviceLost = false }
    }

    /// The sound server's policy corks the stream (a phone call) or lets it go, as the real engine reports it.
    public func serverFocus(_ hasFocus: Bool) {
        emit(.focusChanged(hasFocus: hasFocus))
    }

    /// The sound server goes away as the real engine sees it: the audio stops where it was, `play` answers
    /// `.device` until `returnSoundServer()`, and the loss is reported. `heard`: what the engine reads then
    /// (a real sink reads a stale place once its server is gone); by default where the music was.
    public func loseSoundServer(_ message: String = "the sound server at unix:/run/car/pulse/native does not answer",
                                heard: Double? = nil) {
        state.withLock { state in
            state.deviceLost = true
            state.anchorPosition = heard ?? Self.position(state, now: clock.now()) ?? 0
            state.anchorTime = clock.now()
            state.isPlaying = false
        }
        emit(.outputLost(message))
    }

    /// The sound server answers again, the item ready where it was held.
    public func returnSoundServer() {
        state.withLock { $0.deviceLost = false }
        emit(.outputRestored)
    }

    /// The audio streams every loaded item offers.
    public func setAudioStreams(_ streams: [AudioStreamOption]) {
        state.withLock { $0.streams = streams }
    }

    // MARK: - AudioEngine

    public func load(uri: String, token: PlaybackToken, startAt seconds: Double?, next: NextItem?)
        async throws(AudioError)
    {
        let now = clock.now()
        try state.withLock { state throws(AudioError) in
            state.calls.append(.load(uri: uri, token: token, startAt: seconds, next: next))
            if state.deviceLost { throw AudioError(.device, "audio output disappeared") }
            if state.failingURIs.contains(uri) { throw AudioError(.item, "cannot open \(uri)") }
            state.loaded = Loaded(uri: uri, token: token)
            state.preload = next.map { Loaded(uri: $0.uri, token: $0.token) }
            state.isPlaying = false
            state.rate = 1
            state.anchorPosition = seconds ?? 0
            state.anchorTime = now
        }
        emit(.stateChanged(.paused, token))
    }

    public func preloadNext(uri: String?, token: PlaybackToken?) async {
        state.withLock { state in
            state.calls.append(.preloadNext(uri: uri, token: token))
            if let uri, let token { state.preload = Loaded(uri: uri, token: token) } else { state.preload = nil }
        }
    }

    public func play() async throws(AudioError) {
        let now = clock.now()
        let facts = try state.withLock { state throws(AudioError) -> [AudioFact] in
            state.calls.append(.play)
            if state.deviceLost { throw AudioError(.device, "audio output disappeared") }
            guard let loaded = state.loaded else { throw AudioError(.engine, "nothing loaded") }
            state.anchorPosition = Self.position(state, now: now) ?? 0
            state.anchorTime = now
            state.isPlaying = true
            var facts: [AudioFact] = [.stateChanged(.playing, loaded.token)]
            if !loaded.started && !state.holdsStarts {
                state.loaded?.started = true
                facts.append(.streamStarted(loaded.token))
            }
            return facts
        }
        for fact in facts { emit(fact) }
    }

    public func pause() async throws(AudioError) {
        let now = clock.now()
        let token = try state.withLock { state throws(AudioError) -> PlaybackToken in
            state.calls.append(.pause)
            if state.deviceLost { throw AudioError(.device, "audio output disappeared") }
            guard let loaded = state.loaded else { throw AudioError(.engine, "nothing loaded") }
            state.anchorPosition = Self.position(state, now: now) ?? 0
            state.anchorTime = now
            state.isPlaying = false
            return loaded.token
        }
        emit(.stateChanged(.paused, token))
    }

    public func stop() async {
        let token = state.withLock { state -> PlaybackToken? in
            state.calls.append(.stop)
            defer {
                state.loaded = nil
                state.preload = nil
                state.isPlaying = false
            }
            return state.loaded?.token
        }
        if let token { emit(.stateChanged(.idle, token)) }
    }

    public func seek(to seconds: Double) async throws(AudioError) {
        // Recorded as it starts, so a test sees a stalled seek in the engine while it stalls.
        let stall = state.withLock { state in
            state.calls.append(.seek(seconds))
            return state.seekStall
        }
        if let stall { try? await Task.sleep(for: stall) }
        let now = clock.now()
        try state.withLock { state throws(AudioError) in
            guard state.loaded != nil else { throw AudioError(.engine, "nothing loaded") }
            state.anchorPosition = seconds
            state.anchorTime = now
        }
        // As GStreamer's pipeline does, playing resumes once prerolled at the new place.
        let landed = state.withLock { state in state.isPlaying && !state.holdsSeekLandings ? state.loaded?.token : nil }
        if let landed { emit(.stateChanged(.playing, landed)) }
    }

    public func setRate(_ rate: Double) async throws(AudioError) {
        let now = clock.now()
        state.withLock { state in
            state.calls.append(.setRate(rate))
            state.anchorPosition = Self.position(state, now: now) ?? 0
            state.anchorTime = now
            state.rate = rate
        }
    }

    public func setOutputGain(_ gain: OutputGain) async {
        let volume = gain.amplitude(speedDb: gain.speedDb, item: .unity)
        state.withLock { state in
            state.calls.append(.setVolume(volume))
            state.volume = volume
            state.outputGain = gain
        }
    }

    public func setItemGain(_ gain: ItemGain, for token: PlaybackToken) async {
        state.withLock { state in
            state.calls.append(.setItemGain(gain, token))
            state.itemGains[token] = gain
        }
    }

    public func position() async -> Double? {
        let now = clock.now()
        return state.withLock { Self.position($0, now: now) }
    }

    public func positionSample() async -> PositionSample? {
        let now = clock.now()
        return state.withLock { Self.position($0, now: now) }.map { PositionSample(seconds: $0, sampledAt: now) }
    }

    public func audioStreams() async -> [AudioStreamOption] {
        state.withLock { $0.loaded == nil ? [] : $0.streams }
    }

    public func selectAudioStream(_ index: Int) async throws(AudioError) {
        try state.withLock { state throws(AudioError) in
            state.calls.append(.selectAudioStream(index))
            guard state.streams.contains(where: { $0.index == index }) else {
                throw AudioError(.engine, "no audio stream \(index)")
            }
            for position in state.streams.indices {
                state.streams[position].isActive = state.streams[position].index == index
            }
        }
    }

    public func shutdown() async {
        state.withLock { state in
            state.calls.append(.shutdown)
            state.loaded = nil
            state.preload = nil
            state.isPlaying = false
        }
        continuation.finish()
    }

    private static func position(_ state: State, now: Double) -> Double? {
        guard state.loaded != nil else { return nil }
        guard state.isPlaying else { return state.anchorPosition }
        return state.anchorPosition + (now - state.anchorTime) * state.rate
    }
}
