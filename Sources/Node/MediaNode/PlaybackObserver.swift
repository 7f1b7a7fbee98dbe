import Playback

/// The one way the rest of the node follows playback: now playing, the queue, the commands' parameters,
/// the events, the saved positions, the resume store, the listening history and the metrics each observe
/// it through this protocol, told by `PlaybackObserverService` in the order the controller made things.
///
/// Every method runs on that service's task, one observer after another: an observer that writes to the
/// catalog file hands the work to its own run loop and returns, unless the write is what it is for (a
/// position saved on a pause). An observer implements only what it follows.
protocol PlaybackObserver: Sendable {
    /// A new snapshot; `itemChanged` when it shows another item than the one before it.
    func playbackChanged(_ snapshot: PlaybackSnapshot, itemChanged: Bool) async
    /// An event (trackStarted, trackEnded, error, stalled), in order.
    func playbackReported(_ event: PlaybackEvent) async
    /// Every progress interval while playing: the snapshot and where the audio is, read once for everyone.
    /// The one periodic save of positions hangs off this.
    func playbackProgressed(_ snapshot: PlaybackSnapshot, position: Double) async
    /// The node is stopping and the audio stops next: whatever must be saved of where it stands, now.
    func audioStopping() async
}

extension PlaybackObserver {
    func playbackChanged(_ snapshot: PlaybackSnapshot, itemChanged: Bool) async {}
    func playbackReported(_ event: PlaybackEvent) async {}
    func playbackProgressed(_ snapshot: PlaybackSnapshot, position: Double) async {}
    func audioStopping() async {}
}
