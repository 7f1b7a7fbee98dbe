import Playback
import ServiceLifecycle

/// Tells the playback observers what playback does: each snapshot and event in the order the controller
/// made them, and the position every progress interval while it plays.
///
/// The observers in `showing` mark the retained state a snapshot shows (the queue, now playing, the
/// commands' parameters); `shown` moves on once they have, and a command's reply waits for that, so it
/// never overtakes the state it changed. The observers in `following` are told after, on the same task.
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
                group.addTask {
                    var shownItem: String?
                    // The stream only wakes this loop: what it shows is the newest snapshot, which may be newer
                    // than the one that woke it (that one then wakes it for nothing).
                    for await _ in playback.snapshots {
                        guard let (number, snapshot) = playback.latestSnapshot, number > shown.number else { continue }
                        let item = snapshot.item?.identifier
                        for observer in showing { await observer.playbackChanged(snapshot, itemChanged: item != shownItem) }
                        shown.advance(to: number)
                        for observer in following { await observer.playbackChanged(snapshot, itemChanged: item != shownItem) }
                        shownItem = item
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
