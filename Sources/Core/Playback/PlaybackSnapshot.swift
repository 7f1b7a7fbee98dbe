/// Where playback stands, as now playing shows it (topics.md `state`).
public enum PlaybackState: String, Sendable, Equatable {
    case playing, paused, stopped
    /// Paused by an interruption (the `interrupt` command); ready to resume when it ends.
    case interrupted
}

/// Which way a held seek button moves.
public enum SeekDirection: String, Sendable, Equatable {
    case forward, backward
}

/// Everything now playing and `P/queue` publish, true at `timestamp` (the level is `OutputLevel`'s, on
/// `P/volume`).
///
/// The controller emits a new snapshot only when something changes (play, pause, seek, rate, track,
/// queue, tags, duration), never on a clock tick: a reader computes the live position with
/// `elapsed(at:)`.
public struct PlaybackSnapshot: Sendable, Equatable {
    public var state: PlaybackState
    /// The current item; nil when stopped.
    public var item: QueueItem?
    /// What the stream itself reported about the current item (title, artist, embedded picture, ...).
    public var tags: StreamTags
    /// Seconds into the current item at `timestamp`.
    public var elapsed: Double
    /// Seconds since the Unix epoch at which `elapsed` was true.
    public var timestamp: Double
    /// How fast `elapsed` advances right now: 0 unless playing (S12), the elevated rate while a
    /// fast-forward is held, else `rate`.
    public var playbackRate: Double
    /// The rate the listener chose; it applies whenever audio plays (S16, S17).
    public var rate: Double
    public var defaultPlaybackRate: Double
    /// Seconds; nil when unknown or live (S14).
    public var duration: Double?
    public var queue: QueueSummary
    /// Set while a seek button is held.
    public var seeking: SeekDirection?
    /// The current item's loudness (LUFS), from its tags or the node's measurement, once known.
    public var loudness: Double?

    public init(
        state: PlaybackState = .stopped, item: QueueItem? = nil, tags: StreamTags = StreamTags(),
        elapsed: Double = 0, timestamp: Double = 0, playbackRate: Double = 0, rate: Double = 1,
        defaultPlaybackRate: Double = 1, duration: Double? = nil, queue: QueueSummary = QueueSummary(),
        seeking: SeekDirection? = nil, loudness: Double? = nil
    ) {
        self.state = state
        self.item = item
        self.tags = tags
        self.elapsed = elapsed
        self.timestamp = timestamp
        self.playbackRate = playbackRate
        self.rate = rate
        self.defaultPlaybackRate = defaultPlaybackRate
        self.duration = duration
        self.queue = queue
        self.seeking = seeking
        self.loudness = loudness
    }

    public var identifier: String? { item?.identifier }
    public var isLiveStream: Bool { item?.isLiveStream ?? false }
    /// `playbackQueueIndex` (counts from 0).
    public var queueIndex: Int? { queue.index }
    /// `playbackQueueCount`.
    public var queueCount: Int { queue.count }

    /// The live position at `now` (seconds since the epoch): elapsed + (now - timestamp) x rate,
    /// kept within the item.
    public func elapsed(at now: Double) -> Double {
        let position = max(0, elapsed + (now - timestamp) * playbackRate)
        return duration.map { min(position, $0) } ?? position
    }
}
