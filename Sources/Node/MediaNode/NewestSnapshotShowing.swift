import Playback
import Synchronization

/// Marks the retained state of the controller's newest snapshot, once per snapshot, for whoever asks first:
/// the playback observer service when the stream wakes it, or a command's lane right before the reply (which
/// then needs no hop to the service and back). One at a time, so the state shown only ever moves forward.
final class NewestSnapshotShowing: Sendable {
    let playback: PlaybackController
    /// The observers that mark the retained state a snapshot shows (the queue, now playing, the parameters).
    let showing: [any PlaybackObserver]
    let shown: ShownSnapshots
    private let turn = TurnLock()
    /// The item the last shown snapshot showed; changed only in a turn.
    private let shownItem = Mutex<String?>(nil)

    init(playback: PlaybackController, showing: [any PlaybackObserver], shown: ShownSnapshots) {
        self.playback = playback
        self.showing = showing
        self.shown = shown
    }

    func showNewest() async {
        guard let newest = playback.latestSnapshot?.number, newest > shown.number else { return }
        await turn.take()
        defer { turn.leave() }
        guard let (number, snapshot) = playback.latestSnapshot, number > shown.number else { return }
        let item = snapshot.item?.identifier
        let itemChanged = item != shownItem.withLock { $0 }
        for observer in showing { await observer.playbackChanged(snapshot, itemChanged: itemChanged) }
        shownItem.withLock { $0 = item }
        shown.advance(to: number)
    }
}
