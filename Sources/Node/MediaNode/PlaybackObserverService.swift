import Playback
import ServiceLifecycle

/// Tells the playback observers what playback does: each snapshot and event in the order the controller
/// made them, and the position every progress interval while it plays.
///
/// The observers in `showing` mark the retained state a snapshot shows (the queue, now playing, the
/// commands' parameters); `shown` moves on once they have, and a command's reply waits for that, so it
/// never overtakes the state it changed. A command's lane may mark it itself first (see
/// `NewestSnapshotShowing`). The observers in `following` are told after, on this service's task.
struct PlaybackObserverService: Service {
    /// Opens once the initial state is marked, which what the observers publish would otherwise overwrite.
    let ready: Latch
    let playback: PlaybackController
    let showing: [any PlaybackObserver]
    let following: [any PlaybackObserver]
    /// How far the retained state shows the controller's snapshots, for the replies that wait for it.
    let shown: ShownSnapshots
    /// How often the playing item's position is handed on to be saved (S31).
    let progressInterval: Duration

    func run() async throws {
        await cancelWhenGracefulShutdown { [ready, playback, showing, following, shown, progressInterval] in
            await ready.wait()
            let everyone = showing + following
            await withDiscardingTaskGroup { group in
                let newest = NewestSnapshotShowing(playback: playback, showing: showing, shown: shown)
                shown.install { await newest.showNewest() }
                group.addTask {
                    var followed: UInt64 = 0
                    var followedItem: String?
                    // The stream only wakes this loop: what it shows is the newest snapshot, which may be newer
                    // than the one that woke it (that one then wakes it for nothing), and which a command's reply
                    // may have shown already.
                    for await _ in playback.snapshots {
                        guard let (number, snapshot) = playback.latestSnapshot else { continue }
                        // A command's lane marks what it made before its reply (and what was made meanwhile
                        // once it is done); the followers still hear of a snapshot only once it is shown.
                        var markedByLane = false
                        if shown.isLaneMarking { markedByLane = await shown.wait(for: number, atMost: .seconds(1)) }
                        if !markedByLane { await newest.showNewest() }
                        guard number > followed else { continue }
                        followed = number
                        let item = snapshot.item?.identifier
                        for observer in following { await observer.playbackChanged(snapshot, itemChanged: item != followedItem) }
                        followedItem = item
                    }
                }
                group.addTask {
                    for await event in playback.events {
                        for observer in everyone { await observer.playbackReported(event) }
                    }
                }
                group.addTask {
                    while (try? await Task.sleep(for: progressInterval)) != nil {
                        let snapshot = await playback.snapshot
                        guard snapshot.state == .playing, let position = await playback.position() else { continue }
                        for observer in everyone { await observer.playbackProgressed(snapshot, position: position) }
                    }
                }
                // The controller's streams end only when the engine does.
                await waitUntilCancelled()
                group.cancelAll()
            }
        }
    }
}
