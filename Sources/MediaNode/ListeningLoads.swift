import Playback

/// How long the current load of an item has played, for Recently Played: "played for at least 5 s"
/// counts the playing time of one load (pauses stop the count and do not reset it; loading the item again,
/// as repeat one does, starts again from nothing).
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
        /// Its first sound was reported: another report is another load.
        var started = false
        /// It reached the threshold and was handed on: once per load.
        var counted = false

        func played(at now: ContinuousClock.Instant) -> Duration {
            played + (playingSince.map { now - $0 } ?? .zero)
        }

        mutating func setPlaying(_ playing: Bool, at now: ContinuousClock.Instant) {
            if playing, playingSince == nil {
                playingSince = now
            } else if !playing, let since = playingSince {
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
        load?.setPlaying(snapshot.state == .playing, at: now)
    }

    mutating func follow(_ event: PlaybackEvent, at now: ContinuousClock.Instant) {
        switch event {
        case let .trackStarted(identifier):
            if load?.identifier == identifier, load?.started == false {
                load?.started = true
            } else {
                // Loaded again, or sounding before its snapshot arrived (a gapless change): a new load, playing
                // as playback last was (a queue prepared paused sounds only once played).
                load = Load(identifier: identifier, started: true)
                load?.setPlaying(snapshot.state == .playing, at: now)
            }
        case let .trackEnded(identifier, _, _):
            if load?.identifier == identifier { load?.setPlaying(false, at: now) }
        case .error:
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
