// The sleep timer (a MediaNode addition): the request and the armed timer. Its state is the playhead's
// (`Playhead.sleepTimer`), its countdown the transport's (PlaybackTransport+SleepTimer.swift).

/// `setSleepTimer`'s request.
public enum SleepTimerRequest: Sendable, Equatable {
    /// Pauses `seconds` from now, fading out over the last `fadeOut` seconds.
    case after(seconds: Double, fadeOut: Double)
    /// Pauses when the item playing ends (at the next item's start), fading out over its last `fadeOut` seconds.
    case endOfItem(fadeOut: Double)
    case cancel

    public static let defaultFadeOut = 10.0
}

/// An armed sleep timer, as now playing shows it (`sleepTimer`).
public struct SleepTimer: Sendable, Equatable {
    /// When the music pauses, in seconds since the epoch; nil: when the item playing ends.
    public var endsAt: Double?
    /// Seconds over which the music fades out before it pauses.
    public var fadeOut: Double

    public init(endsAt: Double?, fadeOut: Double) {
        self.endsAt = endsAt
        self.fadeOut = fadeOut
    }

    public var endsWithItem: Bool { endsAt == nil }

    /// How often the output level moves during a fade: a hundred steps over ten seconds, none heard as a step.
    static let fadeStep = 0.1
}
