/// `--resume`: what a start does with the play state the last run saved.
public enum ResumeMode: String, Sendable, CaseIterable {
    /// The saved queue comes back paused at the saved place (the default).
    case paused
    /// As `paused`, and a node that was playing when it stopped plays on by itself.
    case playing
    /// Starts stopped with an empty queue, as version 1 did; the play state is still saved.
    case off
}
