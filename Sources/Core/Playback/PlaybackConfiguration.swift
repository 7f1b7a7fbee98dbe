/// The knobs of the playback controller; the defaults are what a car head unit expects.
public struct PlaybackConfiguration: Sendable, Equatable {
    /// previousTrack restarts the current item when more than this many seconds in.
    public var previousTrackRestartThreshold: Double = 3
    /// The rate while a fast-forward is held during playback.
    public var fastForwardRate: Double = 3
    /// Seconds per step of a held rewind (and of a held fast-forward while paused).
    public var seekStep: Double = 5
    /// Seconds between steps of a held rewind.
    public var seekStepInterval: Double = 0.5
    /// now playing's `defaultPlaybackRate`, and the rate a fresh controller plays at.
    public var defaultPlaybackRate: Double = 1
    /// Volume while an interruption ducks playback.
    public var duckVolume: Double = 0.2
    /// Seed of the shuffle order; pin it for reproducible orders.
    public var shuffleSeed: UInt64 = 0x4D65_6469_614E_6F64

    public init() {}
}
