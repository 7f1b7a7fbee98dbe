import Playback

/// A service that follows playback beside now playing (the resume store, the listening history).
///
/// Told every snapshot and event in the order the controller made them, on the now-playing service's
/// task: it must return at once, handing the fact to its own run loop, so that what it does with it (a
/// write to the catalog file) never delays now playing or the audio.
protocol PlaybackObserver: Sendable {
    func playbackChanged(_ snapshot: PlaybackSnapshot)
    func playbackReported(_ event: PlaybackEvent)
}
