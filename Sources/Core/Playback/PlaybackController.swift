import Synchronization

/// The hub of playback: owns the queue, drives the audio engine, and turns the engine's raw facts
/// into queue moves, snapshots and events. Only this type decides what a fact means.
///
/// Threading: an actor. Every operation and every fact runs to completion before the next one starts
/// (a FIFO turn inside the actor), so an engine call that suspends never lets another command or
/// fact see half a change. `run()` must be running for facts to be handled.
public actor PlaybackController {
    /// A new snapshot whenever what now playing shows changes. Single consumer; a slow consumer
    /// only ever misses superseded snapshots.
    public nonisolated let snapshots: AsyncStream<PlaybackSnapshot>
    /// The newest snapshot given to `snapshots`, numbered from 1 in the order they were given. A follower
    /// that shows the newest one here whenever the stream wakes it knows how far it has got, and whoever
    /// must not overtake what it shows (a command's reply) knows what to wait for.
    public nonisolated var latestSnapshot: (number: UInt64, snapshot: PlaybackSnapshot)? {
        emitted.withLock { $0 }
    }
    /// trackStarted, trackEnded and error events, in order. Single consumer.
    public nonisolated let events: AsyncStream<PlaybackEvent>
    public nonisolated let configuration: PlaybackConfiguration

    let engine: any AudioEngine
    let clock: any PlaybackClock
    let snapshotContinuation: AsyncStream<PlaybackSnapshot>.Continuation
    private nonisolated let emitted = Mutex<(number: UInt64, snapshot: PlaybackSnapshot)?>(nil)
    let eventContinuation: AsyncStream<PlaybackEvent>.Continuation

    // MARK: State (actor-isolated; changed only inside a turn)

    var queue: PlaybackQueue
    var state: PlaybackState = .stopped
    /// The token of the load that is current; facts for other tokens are stale.
    var currentToken: PlaybackToken?
    /// Whether the current load has produced audio (streamStarted seen).
    var currentStarted = false
    /// Whether the current load is refilling its buffer after it ran dry (a stall), until it is full again.
    var isStalled = false
    /// The item the engine will switch to gaplessly, by original index.
    var preloaded: (token: PlaybackToken, originalIndex: Int)?
    /// An original index whose preload failed; not preloaded again until the current item changes.
    var preloadRefused: Int?
    var lastTokenValue: UInt64 = 0
    /// The listener's rate.
    var rate: Double
    /// Elapsed seconds at `anchorTime`; the position advances from there at `effectiveRate`.
    var anchorElapsed: Double = 0
    var anchorTime: Double
    var duration: Double?
    var tags = StreamTags()
    var seekHold: SeekHold?
    /// The load whose last seek, made while playing, has not yet produced audio at the new place. Until it
    /// does, now playing holds the target still (rate 0): over a slow network that can take seconds, and a
    /// position that runs on meanwhile would run ahead of the audio and jump back when it starts.
    var seekLanding: PlaybackToken?
    var interruption: Interruption?
    /// What the announcements playing now do to the music (see `holdForAnnouncement`).
    var announcementHold: MusicHold?
    /// The listener's level (the slider), 0...1; the output is its cube, lowered further by a duck.
    var volume: Double = 1
    var isMuted = false
    /// The speed-dependent gain's target, dB.
    var speedGainDb = 0.0
    /// Where each item's loudness comes from (nil: every item plays as it is), and the target.
    let loudnessSource: (any LoudnessSource)?
    let levelling: LoudnessLevelling
    /// The track loudness (LUFS) of each load and preload, by token, for now playing.
    var itemLoudness: [PlaybackToken: Double] = [:]
    var lastSnapshot: PlaybackSnapshot?
    /// Told once the current load produces audio, or why it never will.
    var startWaiters: [@Sendable (PlaybackOutcome) -> Void] = []
    /// Items that failed in a row while playing, since the last one that started.
    var consecutiveFailures = 0

    var isTurnTaken = false
    var turnWaiters: [CheckedContinuation<Void, Never>] = []
    /// How many facts have been handled; lets tests wait until the engine's facts are consumed.
    package internal(set) var handledFactCount = 0

    public init(
        engine: any AudioEngine, configuration: PlaybackConfiguration = PlaybackConfiguration(),
        clock: any PlaybackClock = SystemPlaybackClock(), loudness: (any LoudnessSource)? = nil,
        levelling: LoudnessLevelling = LoudnessLevelling()
    ) {
        self.engine = engine
        self.loudnessSource = loudness
        self.levelling = levelling
        self.clock = clock
        self.configuration = configuration
        self.queue = PlaybackQueue(seed: configuration.shuffleSeed)
        self.rate = configuration.defaultPlaybackRate
        self.anchorTime = clock.now()
        (snapshots, snapshotContinuation) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(1))
        (events, eventContinuation) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(256))
    }

    /// Handles the engine's facts until its stream ends (engine shutdown), then finishes the
    /// snapshot and event streams. Run it once, as a service body or a task.
    public func run() async {
        for await fact in engine.facts {
            await handle(fact)
        }
        snapshotContinuation.finish()
        eventContinuation.finish()
    }

    // MARK: - Reading

    /// What now playing shows right now.
    public var snapshot: PlaybackSnapshot { makeSnapshot() }

    /// The queue as it stands.
    public var currentQueue: PlaybackQueue { queue }

    /// The live position in the current item, in seconds.
    public func position() async -> Double? {
        guard queue.currentItem != nil else { return nil }
        return await currentPosition()
    }

    // MARK: - Turns

    /// Runs `body` alone: operations and facts queue up in arrival order.
    func exclusively<T>(_ body: () async -> T) async -> T {
        if isTurnTaken {
            await withCheckedContinuation { turnWaiters.append($0) }
        } else {
            isTurnTaken = true
        }
        defer {
            if turnWaiters.isEmpty { isTurnTaken = false } else { turnWaiters.removeFirst().resume() }
        }
        return await body()
    }

    // MARK: - Position and publishing

    /// How fast the position advances now.
    var effectiveRate: Double {
        guard state == .playing, !isSeekLanding else { return 0 }
        if case .fastForward = seekHold?.kind { return configuration.fastForwardRate }
        return rate
    }

    func computedPosition() -> Double {
        let position = max(0, anchorElapsed + (clock.now() - anchorTime) * effectiveRate)
        return duration.map { min(position, $0) } ?? position
    }

    /// Whether the current load's last seek is still on its way to the new place.
    var isSeekLanding: Bool { seekLanding != nil && seekLanding == currentToken }

    /// The engine's position when it knows one, else the anchored estimate. While a seek is landing the
    /// target is the answer: the engine would make the caller wait for the new place, or read the old one.
    func currentPosition() async -> Double {
        if currentToken != nil, !isSeekLanding, let position = await engine.position() { return max(0, position) }
        return computedPosition()
    }

    /// Pins the position before anything that changes how it advances (state, rate, seek).
    func anchor(at elapsed: Double) {
        anchorElapsed = elapsed
        anchorTime = clock.now()
    }

    /// Pins the position to the engine's reading, at the moment the engine took it.
    func reanchor() async {
        guard currentToken != nil, !isSeekLanding, let sample = await engine.positionSample() else {
            anchor(at: computedPosition())
            return
        }
        anchorElapsed = max(0, sample.seconds)
        anchorTime = sample.sampledAt ?? clock.now()
    }

    func makeSnapshot() -> PlaybackSnapshot {
        let item = queue.currentItem
        return PlaybackSnapshot(
            state: state, item: item, tags: tags, elapsed: item == nil ? 0 : anchorElapsed,
            timestamp: anchorTime, playbackRate: effectiveRate, rate: rate,
            defaultPlaybackRate: configuration.defaultPlaybackRate, duration: item == nil ? nil : duration,
            queue: queue.summary, seeking: seekHold?.direction, volume: volume, isMuted: isMuted,
            speedGainDb: speedGainDb, loudness: item == nil ? nil : currentLoudness)
    }

    /// Emits a snapshot if anything changed since the last one.
    func publish() {
        let snapshot = makeSnapshot()
        guard snapshot != lastSnapshot else { return }
        lastSnapshot = snapshot
        // Numbered before it is yielded: a follower the stream wakes finds it here.
        emitted.withLock { $0 = (($0?.number ?? 0) + 1, snapshot) }
        snapshotContinuation.yield(snapshot)
    }

    func emit(_ event: PlaybackEvent) {
        eventContinuation.yield(event)
    }

    func nextToken() -> PlaybackToken {
        lastTokenValue += 1
        return PlaybackToken(lastTokenValue)
    }
}
