import Synchronization

/// The playback controller's two outputs: its snapshots, numbered, and its events, in order.
final class PlaybackStreams: Sendable {
    /// A new snapshot whenever what now playing shows changes. Single consumer; a slow consumer only ever
    /// misses superseded snapshots.
    let snapshots: AsyncStream<PlaybackSnapshot>
    /// trackStarted, trackEnded, error and stalled events, in order. Single consumer.
    let events: AsyncStream<PlaybackEvent>
    private let snapshotContinuation: AsyncStream<PlaybackSnapshot>.Continuation
    private let eventContinuation: AsyncStream<PlaybackEvent>.Continuation
    private let emitted = Mutex<(number: UInt64, snapshot: PlaybackSnapshot)?>(nil)

    init() {
        (snapshots, snapshotContinuation) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(1))
        (events, eventContinuation) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(256))
    }

    /// The newest snapshot given to `snapshots`, numbered from 1 in the order they were given.
    var latest: (number: UInt64, snapshot: PlaybackSnapshot)? { emitted.withLock { $0 } }

    /// Gives `snapshot` to the stream unless it is the one given last.
    func show(_ snapshot: PlaybackSnapshot) {
        let isNew = emitted.withLock { emitted in
            guard emitted?.snapshot != snapshot else { return false }
            // Numbered before it is yielded: a follower the stream wakes finds it here.
            emitted = ((emitted?.number ?? 0) + 1, snapshot)
            return true
        }
        if isNew { snapshotContinuation.yield(snapshot) }
    }

    func emit(_ event: PlaybackEvent) {
        eventContinuation.yield(event)
    }

    func finish() {
        snapshotContinuation.finish()
        eventContinuation.finish()
    }
}
