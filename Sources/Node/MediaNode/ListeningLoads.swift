import Playback

/// How long the current load of an item has played, for Recently Played: "played for at least 5 s"
/// counts the playing time of one load, from its first sound (pauses stop the count and do not reset it;
/// loading the item again, as repeat one does, starts again from nothing).
///
/// Snapshots and events reach it from two streams whose order against each other is not kept (now playing
/// follows each on its own task), so a load is told apart by what each stream alone says: a snapshot
/// naming another item, or a second `trackStarted` of the same item, starts a new one.
struct ListeningLoads {
    struct Load {
        let identifier: String
        /// Playing time counted up to the last pause.
        var played: Duration = .zero
        /// Since when it plays, while it does.
        var playingSince: ContinuousClock.Instant?
        /// Its first sound was reported: the count starts then, not when play was asked for (the pipeline
        /// takes a while to start), and another report is another load.
        var started = false
        /// Whether playback says it plays.
        var isPlaying = false
        /// It reached the threshold and was handed on: once per load.
        var counted = false

        func played(at now: ContinuousClock.Instant) -> Duration {
            played + (playingSince.map { now - $0 } ?? .zero)
        }

        /// Starts or stops the count as playback and the first sound say.
        mutating func update(isPlaying: Bool, at now: ContinuousClock.Instant) {
            self.isPlaying = isPlaying
            let counting = isPlaying && started
            if counting, playingSince == nil {
                playingSince = now
            } else if !counting, let since = playingSince {
                played += now - since
                playingSince = nil
            }
        }
    }

    let threshold: Duration
    private(set) var load: Load?
    /// The latest snapshot: whether playback plays, and where the item stands.
    private(set) var snapshot = PlaybackSnapshot()

    init(threshold: Duration) {
        self.threshold = threshold
    }

    mutating func follow(_ snapshot: PlaybackSnapshot, at now: ContinuousClock.Instant) {
        self.snapshot = snapshot
        guard let identifier = snapshot.item?.identifier else {
            load = nil
            return
        }
        if load?.identifier != identifier { load = Load(identifier: identifier) }
        load?.update(isPlaying: snapshot.state == .playing, at: now)
    }

    mutating func follow(_ event: PlaybackEvent, at now: ContinuousClock.Instant) {
        switch event {
        case let .trackStarted(identifier):
            var sounding = load ?? Load(identifier: identifier, isPlaying: snapshot.state == .playing)
            if sounding.identifier != identifier || sounding.started {
                // Loaded again, or sounding before its snapshot arrived (a gapless change): a new load, playing
                // as playback last was.
                sounding = Load(identifier: identifier, isPlaying: snapshot.state == .playing)
            }
            sounding.started = true
            sounding.update(isPlaying: sounding.isPlaying, at: now)
            load = sounding
        case let .trackEnded(identifier, _, _):
            if load?.identifier == identifier { load?.update(isPlaying: false, at: now) }
        case .error, .stalled, .seeked, .output:
            // A stall leaves the state playing: its seconds count as the snapshot says, like a seek's. An output
            // change shows in the snapshot that follows it.
            break
        }
    }

    /// The item whose load has now played for the threshold, once per load.
    mutating func takeCounted(at now: ContinuousClock.Instant) -> String? {
        guard var load, !load.counted, load.played(at: now) >= threshold else { return nil }
        load.counted = true
        self.load = load
        return load.identifier
    }

    /// When the current load will reach the threshold, while it plays and has not yet.
    func deadline(at now: ContinuousClock.Instant) -> ContinuousClock.Instant? {
        guard let load, !load.counted, load.playingSince != nil else { return nil }
        return now + max(.zero, threshold - load.played(at: now))
    }
}
