import ContentTree
import Foundation
import Logging
import Playback

/// Playback progress (S31): each item's position saved in the catalog when it stops, ends, every progress
/// interval while it plays, and at shutdown, and the lists showing it republished (`playbackProgress`);
/// `play` resumes from it. A playback observer.
final class PlaybackProgress: PlaybackObserver {
    private let content: NodeContent
    private let catalog: any ContentCatalog
    private let playback: PlaybackController?
    /// Shared with the resume store's saves: a full disk fails both, and is one episode in the log.
    private let saveFailures: FailureEpisode
    /// When the node has a state file for the place of what plays: the save batcher, which writes an item's
    /// position to the catalog when it stops, and the positions the catalog does not hold yet, which the
    /// lists show meanwhile. Steady playback then writes nothing to the catalog.
    private let saves: (batcher: SaveBatcher, unsaved: UnsavedPositions)?
    private let logger: Logger

    init(content: NodeContent, catalog: any ContentCatalog, playback: PlaybackController?, saveFailures: FailureEpisode,
         saves: (batcher: SaveBatcher, unsaved: UnsavedPositions)? = nil, logger: Logger) {
        self.content = content
        self.catalog = catalog
        self.playback = playback
        self.saveFailures = saveFailures
        self.saves = saves
        self.logger = logger
        if let saves { saves.batcher.whenPositionsWritten { [unsaved = saves.unsaved] in unsaved.written($0) } }
    }

    // MARK: - PlaybackObserver

    /// Leaving `playing` saves where the item stands.
    func playbackChanged(_ snapshot: PlaybackSnapshot, itemChanged: Bool) async {
        let previous = content.follow(snapshot)
        guard previous == .playing, snapshot.state != .playing, let item = snapshot.item, !item.isLiveStream else { return }
        await save(item.identifier, elapsed: snapshot.elapsed, duration: snapshot.duration ?? item.duration)
    }

    /// A trackEnded saves the item's last position (its end when it finished).
    func playbackReported(_ event: PlaybackEvent) async {
        guard case let .trackEnded(identifier, _, position) = event else { return }
        await save(identifier, elapsed: position, duration: content.duration(of: identifier))
    }

    /// While playing, the position every progress interval; the lists showing it are republished only when
    /// what they show moved visibly.
    func playbackProgressed(_ snapshot: PlaybackSnapshot, position: Double) async {
        guard let item = snapshot.item, !item.isLiveStream else { return }
        await save(item.identifier, elapsed: position, duration: snapshot.duration ?? item.duration, whilePlaying: true)
    }

    /// Before the audio stops at shutdown: the exact place, and the lists showing it.
    func audioStopping() async {
        await saveCurrent()
        await publishPendingTree()
    }

    /// Saves the current item's position where it stands now.
    func saveCurrent() async {
        guard let playback else { return }
        let snapshot = await playback.snapshot
        guard let item = snapshot.item, !item.isLiveStream, let position = await playback.position() else { return }
        await save(item.identifier, elapsed: position, duration: snapshot.duration ?? item.duration)
    }

    /// At shutdown, once the content tree service has stopped: the lists showing the position just saved
    /// are republished now, before `offline`, not after a coalescing window the node no longer waits for.
    func publishPendingTree() async {
        await saves?.batcher.flush()
        let (diff, progress) = content.takePending()
        guard !diff.isEmpty || !progress.isEmpty else { return }
        do {
            _ = try await content.manager.apply(diff, progressChanged: progress)
        } catch {
            logger.warning("could not republish the content tree at shutdown: \(error)")
        }
    }

    private func save(_ identifier: String, elapsed: Double, duration: Double?, whilePlaying: Bool = false) async {
        let position = PlaybackPosition(elapsed: elapsed, duration: duration, updatedAt: Date().timeIntervalSince1970)
        if let saves {
            // While it plays, the resume store's play state (in the state file, every interval) is the place a
            // kill leaves, carried over to the catalog at the next start; the lists move from memory, and the
            // catalog takes the position when the item stops.
            if whilePlaying, !(await content.movedVisibly(identifier, to: position)) { return }
            saves.unsaved.set(position, for: identifier)
            if !whilePlaying { saves.batcher.savePosition(position, for: identifier) }
            content.markProgress(identifier)
            return
        }
        do {
            try await catalog.savePlaybackPosition(position, for: identifier)
            if saveFailures.succeeded() {
                logger.notice("saving positions again: the position of \(identifier) is saved")
            }
            if whilePlaying, !(await content.movedVisibly(identifier, to: position)) { return }
            content.markProgress(identifier)
        } catch {
            // A full disk fails every save until space comes back: said once when it starts, once when it ends.
            if saveFailures.failed() {
                let retry = content.settings.progressInterval
                logger.warning(
                    "could not save the position of \(identifier): \(error); playback goes on, saves are retried every \(retry) and logged again once one works")
            }
        }
    }
}
