/// The playback lane: one turn in which the transport, the queue and the engine's facts change, and the
/// public face of all three.
///
/// Its parts each own their state, as Mopidy's controllers do: `PlaybackTransport` decides play, pause,
/// stop, track changes and what a fact means; `Playhead` keeps the state, where playback is, the
/// rate and the seek buttons; `QueueController` the queue and where it came from; `ItemLoader` what the
/// engine holds. They live in this actor's isolation (none is `Sendable`, so the compiler keeps them
/// here). The output level is `OutputLevel`'s, an actor of its own reached directly.
///
/// Threading: an actor. Every operation and every fact runs to completion before the next one starts
/// (a FIFO turn inside the actor), so an engine call that suspends never lets another command or
/// fact see half a change. `run()` must be running for facts to be handled.
public actor PlaybackController {
    public nonisolated let configuration: PlaybackConfiguration
    /// The output level: volume, mute, ducks, speed gain and loudness.
    public nonisolated let level: OutputLevel
    let engine: any AudioEngine
    let streams: PlaybackStreams
    let turns = Turns()
    let queue: QueueController
    let loads: ItemLoader
    let playhead: Playhead
    let transport: PlaybackTransport
    /// How many facts have been handled; lets tests wait until the engine's facts are consumed.
    package internal(set) var handledFactCount = 0

    /// - Parameter level: the output level the engine plays at; a controller of its own makes one.
    public init(
        engine: any AudioEngine, level: OutputLevel? = nil, configuration: PlaybackConfiguration = PlaybackConfiguration(),
        clock: any PlaybackClock = SystemPlaybackClock()
    ) {
        let streams = PlaybackStreams()
        let level = level ?? OutputLevel(engine: engine, duckVolume: configuration.duckVolume)
        let queue = QueueController(seed: configuration.shuffleSeed)
        let loads = ItemLoader(engine: engine, queue: queue, level: level)
        let playhead = Playhead(
            engine: engine, clock: clock, configuration: configuration, queue: queue, loads: loads, streams: streams)
        self.engine = engine
        self.streams = streams
        self.level = level
        self.configuration = configuration
        self.queue = queue
        self.loads = loads
        self.playhead = playhead
        self.transport = PlaybackTransport(
            engine: engine, clock: clock, configuration: configuration, queue: queue, loads: loads, playhead: playhead,
            level: level, streams: streams)
    }

    /// A new snapshot whenever what now playing shows changes. Single consumer; a slow consumer
    /// only ever misses superseded snapshots.
    public nonisolated var snapshots: AsyncStream<PlaybackSnapshot> { streams.snapshots }
    /// The newest snapshot given to `snapshots`, numbered from 1 in the order they were given. A follower
    /// that shows the newest one here whenever the stream wakes it knows how far it has got, and whoever
    /// must not overtake what it shows (a command's reply) knows what to wait for.
    public nonisolated var latestSnapshot: (number: UInt64, snapshot: PlaybackSnapshot)? { streams.latest }
    /// trackStarted, trackEnded, error and stalled events, in order. Single consumer.
    public nonisolated var events: AsyncStream<PlaybackEvent> { streams.events }

    /// Handles the engine's facts until its stream ends (engine shutdown), then finishes the
    /// snapshot and event streams. Run it once, as a service body or a task.
    public func run() async {
        for await fact in engine.facts {
            await handle(fact)
        }
        streams.finish()
    }

    // MARK: - Reading

    /// What now playing shows right now.
    public var snapshot: PlaybackSnapshot { playhead.makeSnapshot() }

    /// The queue as it stands.
    public var currentQueue: PlaybackQueue { queue.queue }

    /// The live position in the current item, in seconds.
    public func position() async -> Double? {
        guard queue.currentItem != nil else { return nil }
        return await playhead.currentPosition()
    }

    /// Waits until the current item really produces audio, or fails (S24: a play request is answered
    /// only then). Returns at once if it already plays. Add a timeout around it: an engine that never
    /// reports keeps it waiting until the current item changes.
    public func waitUntilStarted() async -> PlaybackOutcome {
        guard loads.isLoaded else { return .failed(.nothingLoaded) }
        return await withCheckedContinuation { continuation in
            loads.whenStarted { continuation.resume(returning: $0) }
        }
    }

    // MARK: - Turns

    /// Runs `body` alone: operations and facts queue up in arrival order.
    func exclusively<T>(_ body: () async -> T) async -> T {
        await turns.exclusively { await body() }
    }
}
