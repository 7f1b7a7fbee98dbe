import ContentTree
import Foundation
import Playback

// MARK: - Playback progress (S31): saved per item, published as playbackProgress, resumed on play

extension Node {
    /// Called with every snapshot: leaving `playing` saves where the item stands.
    func followProgress(_ snapshot: PlaybackSnapshot) async {
        guard let content else { return }
        let previous = content.follow(snapshot)
        guard previous == .playing, snapshot.state != .playing, let item = snapshot.item, !item.isLiveStream else { return }
        await saveProgress(item.identifier, elapsed: snapshot.elapsed, duration: snapshot.duration ?? item.duration)
    }

    /// Called with every trackEnded: the item's last position (its end when it finished).
    func followProgress(ended identifier: String, position: Double) async {
        guard let content else { return }
        await saveProgress(identifier, elapsed: position, duration: content.duration(of: identifier))
    }

    /// While playing, saves the position every `progressInterval`.
    func saveProgressPeriodically() async {
        guard let content else { return }
        while !Task.isCancelled {
            do { try await Task.sleep(for: content.settings.progressInterval) } catch { return }
            await saveCurrentProgress(onlyWhilePlaying: true)
        }
    }

    /// Saves the current item's position, e.g. at shutdown. While it plays, the position is saved on a
    /// clock, but the lists showing it are republished only when what they show moved visibly.
    func saveCurrentProgress(onlyWhilePlaying: Bool = false) async {
        guard let playback, content != nil else { return }
        let snapshot = await playback.snapshot
        guard let item = snapshot.item, !item.isLiveStream else { return }
        if onlyWhilePlaying && snapshot.state != .playing { return }
        guard let position = await playback.position() else { return }
        await saveProgress(item.identifier, elapsed: position, duration: snapshot.duration ?? item.duration,
                           whilePlaying: onlyWhilePlaying)
    }

    /// At shutdown, once the content tree service has stopped: the lists showing the position just saved
    /// are republished now, before `offline`, not after a coalescing window the node no longer waits for.
    func publishPendingTree() async {
        guard let content else { return }
        let (diff, progress) = content.takePending()
        guard !diff.isEmpty || !progress.isEmpty else { return }
        do {
            _ = try await content.manager.apply(diff, progressChanged: progress)
        } catch {
            logger.warning("could not republish the content tree at shutdown: \(error)")
        }
    }

    func saveProgress(_ identifier: String, elapsed: Double, duration: Double?, whilePlaying: Bool = false) async {
        guard let catalog, let content else { return }
        let position = PlaybackPosition(elapsed: elapsed, duration: duration, updatedAt: Date().timeIntervalSince1970)
        do {
            try await catalog.savePlaybackPosition(position, for: identifier)
            if progressSaveFailures.succeeded() {
                logger.notice("saving positions again: the position of \(identifier) is saved")
            }
            if whilePlaying, !(await content.movedVisibly(identifier, to: position)) { return }
            content.markProgress(identifier)
        } catch {
            // A full disk fails every save until space comes back: said once when it starts, once when it ends.
            if progressSaveFailures.failed() {
                let retry = content.settings.progressInterval
                logger.warning(
                    "could not save the position of \(identifier): \(error); playback goes on, saves are retried every \(retry) and logged again once one works")
            }
        }
    }
}
