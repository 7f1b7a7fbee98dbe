// MARK: - Whether playback moves, how fast, and where it is

/// The position at a moment: `elapsed` seconds into the item at `time` (seconds since the Unix epoch).
struct PositionAnchor {
    var elapsed: Double
    var time: Double
}

/// The transport's state and position: whether playback moves (`state`), the position pinned at a moment
/// and the rate it advances at, the listener's rate, and the seek buttons. The only one that changes
/// them; it makes the snapshot now playing shows, and publishes it.
///
/// The snapshot is never made on a clock tick: a reader computes the live position from the anchor and the
/// rate. Threading: lives in the playback controller's isolation (not `Sendable`) and changes only inside
/// its turns; its async methods run on the controller.
final class Playhead {
    let engine: any AudioEngine
    let clock: any PlaybackClock
    let configuration: PlaybackConfiguration
    let queue: QueueController
    let loads: ItemLoader
    let streams: PlaybackStreams
    var state: PlaybackState = .stopped
    /// The listener's rate.
    var rate: Double
    /// Where the position was at a moment; it advances from there at `effectiveRate`.
    private(set) var anchored: PositionAnchor
    var seeking = SeekState()

    init(engine: any AudioEngine, clock: any PlaybackClock, configuration: PlaybackConfiguration,
         queue: QueueController, loads: ItemLoader, streams: PlaybackStreams) {
        self.engine = engine
        self.clock = clock
        self.configuration = configuration
        self.queue = queue
        self.loads = loads
        self.streams = streams
        rate = configuration.defaultPlaybackRate
        anchored = PositionAnchor(elapsed: 0, time: clock.now())
    }

    // MARK: - Reading

    /// How fast the position advances now.
    var effectiveRate: Double {
        guard state == .playing, !isSeekLanding else { return 0 }
        if case .fastForward = seeking.hold?.kind { return configuration.fastForwardRate }
        return rate
    }

    func computedPosition() -> Double {
        let position = max(0, anchored.elapsed + (clock.now() - anchored.time) * effectiveRate)
        return loads.duration.map { min(position, $0) } ?? position
    }

    /// Whether the current load's last seek is still on its way to the new place.
    var isSeekLanding: Bool { seeking.landing != nil && seeking.landing == loads.current }

    /// A restored item waiting for its first `play`: paused, current, and not in the engine.
    var isRestoredUnloaded: Bool { !loads.isLoaded && state == .paused && queue.currentItem != nil }

    /// The engine's position when it knows one, else the anchored estimate. While a seek is landing the
    /// target is the answer: the engine would make the caller wait for the new place, or read the old one.
    nonisolated(nonsending) func currentPosition() async -> Double {
        if loads.isLoaded, !isSeekLanding, let position = await engine.position() { return max(0, position) }
        return computedPosition()
    }

    // MARK: - Pinning

    /// Pins the position before anything that changes how it advances (state, rate, seek).
    func anchor(at elapsed: Double) {
        anchored = PositionAnchor(elapsed: elapsed, time: clock.now())
    }

    /// Pins the position to an engine reading, at the moment the engine took it.
    func anchor(to sample: PositionSample) {
        anchored = PositionAnchor(elapsed: max(0, sample.seconds), time: sample.sampledAt ?? clock.now())
    }

    /// Pins the position to the engine's reading, at the moment the engine took it.
    nonisolated(nonsending) func reanchor() async {
        guard loads.isLoaded, !isSeekLanding, let sample = await engine.positionSample() else {
            anchor(at: computedPosition())
            return
        }
        anchor(to: sample)
    }

    // MARK: - Publishing

    func makeSnapshot() -> PlaybackSnapshot {
        let item = queue.currentItem
        return PlaybackSnapshot(
            state: state, item: item, tags: loads.tags, elapsed: item == nil ? 0 : anchored.elapsed,
            timestamp: anchored.time, playbackRate: effectiveRate, rate: rate,
            defaultPlaybackRate: configuration.defaultPlaybackRate, duration: item == nil ? nil : loads.duration,
            queue: queue.summary, seeking: seeking.hold?.direction, loudness: item == nil ? nil : loads.currentLoudness)
    }

    /// Emits a snapshot if anything changed since the last one.
    func publish() {
        streams.show(makeSnapshot())
    }
}
