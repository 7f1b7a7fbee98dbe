/// Why an item stopped being the current one.
public enum TrackEndReason: String, Sendable, Equatable {
    /// It played to its end.
    case finished
    /// The listener moved on (next, previous, a new queue).
    case skipped
    /// stop released the queue.
    case stopped
    /// It could not be played further.
    case failed
}

/// Something that happened to playback, for `P/events` and for whoever tracks progress (S31).
/// Raw engine facts never leave the core; these are their meaning.
public enum PlaybackEvent: Sendable, Equatable {
    /// The item really produces audio (S24: a play request may be answered now).
    case trackStarted(identifier: String)
    /// The item stopped being current, `position` seconds in.
    case trackEnded(identifier: String, reason: TrackEndReason, position: Double)
    /// An item failed (then the controller skipped it) or the audio output was lost.
    case error(identifier: String?, AudioError)
    /// The item ran out of data while it played and waits for its buffer to fill (a network stream).
    case stalled(identifier: String)
    /// The position jumped to `position` seconds in the item, whoever asked (a seek, a skip, a step of a held
    /// button, previous restarting the item, the end of a held fast-forward): MPRIS's `Seeked`.
    case seeked(identifier: String, position: Double)
    /// The sound server took the output or gave it back, or the output was lost or is back.
    case output(OutputChange)
}

/// What happened to the output itself, whatever plays (`P/events`: `audioFocus`, `outputLost`, `outputRestored`).
public enum OutputChange: Sendable, Equatable {
    /// The sound server asked the music to make way (a phone call): it is held as `interrupted`.
    case focusLost
    /// The sound server let it go: music held for it plays on.
    case focusRegained
    /// The output is gone; music that played is held as `interrupted` until it is back.
    case lost(String)
    /// The output answers again.
    case restored
}
