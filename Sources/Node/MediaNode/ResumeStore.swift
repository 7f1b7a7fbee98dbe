import CatalogStore
import Foundation
import Logging
import Playback
import ServiceLifecycle

/// What the car remembers across an ignition cycle: the queue in the order the listener hears it, the
/// current entry and its place, the modes, the rate, and whether it played.
///
/// The only owner of the saved play state. At start it puts it back into the playback controller before
/// the node publishes anything (`restored` opens then), so the first now playing already shows it; while
/// the node runs it observes playback and saves each change in one small transaction on its own task, never
/// on the audio's; the position every progress interval while playing (`playbackProgressed`), and exactly
/// at shutdown (it stops before the audio does).
final class ResumeStore: Service, PlaybackObserver {
    private let memory: any PlayStateMemory
    private let playback: PlaybackController
    private let items: QueueItemMaker
    private let mode: ResumeMode
    /// The transport's: commands are taken, so playing on by itself comes after the first now playing.
    private let ready: Latch
    private let logger: Logger
    /// Shared with the saves of each item's position: a full disk fails both, and is one episode in the log.
    private let saveFailures: FailureEpisode
    /// Opens once the saved state is back in the controller, or there was none to put back.
    let restored = Latch()

    private enum Input {
        case changed
        /// A progress interval passed.
        case tick
    }

    private let inputs: AsyncStream<Input>
    private let inputContinuation: AsyncStream<Input>.Continuation

    init(memory: any PlayStateMemory, playback: PlaybackController, items: QueueItemMaker,
         mode: ResumeMode, ready: Latch, saveFailures: FailureEpisode = FailureEpisode(),
         logger: Logger) {
        self.saveFailures = saveFailures
        self.memory = memory
        self.playback = playback
        self.items = items
        self.mode = mode
        self.ready = ready
        self.logger = logger
        // Only the newest change matters: a save writes the whole state as it is then.
        (inputs, inputContinuation) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(2))
    }

    // MARK: - PlaybackObserver

    func playbackChanged(_ snapshot: PlaybackSnapshot, itemChanged: Bool = false) async { inputContinuation.yield(.changed) }

    func playbackProgressed(_ snapshot: PlaybackSnapshot, position: Double) async { inputContinuation.yield(.tick) }

    // MARK: - Service

    func run() async throws {
        let playOn = await restore()
        restored.open()
        var book = SaveBook()
        await withDiscardingTaskGroup { group in
            if playOn {
                group.addTask { [ready, playback, logger] in
                    await ready.wait()
                    let outcome = await playback.play()
                    if !outcome.isSuccess { logger.warning("could not play on after the restart: \(outcome)") }
                }
            }
            group.addTask { [self] in
                try? await gracefulShutdown()
                inputContinuation.finish()
            }
            // What is saved is the controller's state when the save is made: a change that arrived before
            // the restore (the volume's, at start) must not save the stopped state it showed.
            for await input in inputs {
                let snapshot = await playback.snapshot
                if case .tick = input, snapshot.state != .playing { continue }
                // Playing, the anchor may be minutes old: the engine says where the audio is, never ahead of it.
                await save(snapshot, position: snapshot.state == .playing ? await playback.position() : nil, book: &book)
            }
            group.cancelAll()
        }
        // Stopping before the audio does: the exact place, and whether it was playing, as the listener left it.
        await save(await playback.snapshot, position: await playback.position(), book: &book)
    }

    // MARK: - Saving

    /// What was last written, so an unchanged state is not written again and the queue's rows only when
    /// the queue changed.
    private struct SaveBook {
        var saved: SavedPlayState?
    }

    private func save(_ snapshot: PlaybackSnapshot, position: Double?, book: inout SaveBook) async {
        var state = SavedPlayState(
            entries: book.saved?.entries ?? [], currentIndex: snapshot.queue.index,
            elapsed: snapshot.item == nil ? 0 : max(0, position ?? snapshot.elapsed),
            repeatMode: snapshot.queue.repeatMode.rawValue, shuffleMode: snapshot.queue.shuffleMode.rawValue,
            rate: snapshot.rate, state: Self.stateName(snapshot), context: snapshot.queue.context,
            savedAt: Date().timeIntervalSince1970)
        let queueChanged = book.saved?.entries.map(\.identifier) != snapshot.queue.identifiers
        if queueChanged {
            let queue = await playback.currentQueue
            state.entries = queue.order.map { original in
                SavedPlayState.Entry(
                    identifier: queue.items[original].identifier, originalIndex: original,
                    container: queue.items[original].containerIdentifier)
            }
        }
        var unchanged = book.saved
        unchanged?.savedAt = state.savedAt
        guard unchanged != state else { return }
        do {
            if let saved = book.saved, !queueChanged, Self.onlyPositionMoved(from: saved, to: state) {
                try await memory.savePlayPosition(state.elapsed, savedAt: state.savedAt)
            } else {
                try await memory.savePlayState(state, queueChanged: queueChanged || book.saved == nil)
            }
            book.saved = state
            if saveFailures.succeeded() { logger.notice("saving positions again: the play state is saved") }
        } catch {
            if saveFailures.failed() {
                logger.warning("could not save the play state: \(error); playback goes on, and it is saved again with the next change")
            }
        }
    }

    private static func onlyPositionMoved(from saved: SavedPlayState, to state: SavedPlayState) -> Bool {
        var moved = saved
        moved.elapsed = state.elapsed
        moved.savedAt = state.savedAt
        return moved == state
    }

    /// An interruption is saved as a pause: a call in progress is not reason to play on by itself.
    private static func stateName(_ snapshot: PlaybackSnapshot) -> String {
        guard snapshot.item != nil else { return PlaybackState.stopped.rawValue }
        return snapshot.state == .playing ? PlaybackState.playing.rawValue : PlaybackState.paused.rawValue
    }

    // MARK: - Restoring

    /// Puts the saved state back into the controller; true when the node should play on by itself.
    private func restore() async -> Bool {
        guard mode != .off else { return false }
        let saved: SavedPlayState
        do {
            guard let found = try await memory.savedPlayState() else { return false }
            saved = found
        } catch {
            logger.warning("the saved play state cannot be read (\(error)); starting stopped")
            return false
        }
        guard saved.state != PlaybackState.stopped.rawValue, let current = saved.currentIndex,
              saved.entries.indices.contains(current)
        else { return false }
        guard let (queue, position) = await restoredQueue(saved, current: current) else {
            logger.info("nothing of the saved queue from the current entry on is in the catalog now; starting stopped")
            return false
        }
        await playback.restore(queue, context: saved.context, position: position, rate: saved.rate)
        logger.info("restored a queue of \(queue.count) at entry \(queue.currentIndex.map { $0 + 1 } ?? 0), \(String(format: "%.1f", position)) s, \(saved.state)")
        return mode == .playing && saved.state == PlaybackState.playing.rawValue
    }

    /// The saved entries the catalog still holds, in the saved orders; the current one, or the first after
    /// it that is still there (at 0 s). Nil when none from the current one on is left.
    private func restoredQueue(_ saved: SavedPlayState, current: Int) async -> (PlaybackQueue, Double)? {
        var kept: [(item: QueueItem, originalIndex: Int)] = []
        var keptCurrent: Int?
        var position = saved.elapsed
        let found: [String: QueueItem]
        do {
            found = try await items.queueItems(saved.entries.map { ($0.identifier, $0.container) })
        } catch {
            logger.warning("could not read the saved queue's items from the catalog: \(error)")
            return nil
        }
        for (playIndex, entry) in saved.entries.enumerated() {
            // A local file gone since (the USB stick taken out) is left out now, not failed at the first play.
            guard let item = found[entry.identifier], Self.isReachable(item) else { continue }
            if keptCurrent == nil, playIndex >= current {
                keptCurrent = kept.count
                if playIndex != current { position = 0 }
            }
            kept.append((item, entry.originalIndex))
        }
        guard let keptCurrent else { return nil }
        // The given order among the entries kept: each one's rank by its saved original index.
        let given = kept.indices.sorted { kept[$0].originalIndex < kept[$1].originalIndex }
        var originalOf = [Int](repeating: 0, count: kept.count)
        for (rank, keptIndex) in given.enumerated() { originalOf[keptIndex] = rank }
        guard let queue = PlaybackQueue(
            restoring: given.map { kept[$0].item }, order: originalOf, currentIndex: keptCurrent,
            repeatMode: RepeatMode(rawValue: saved.repeatMode) ?? .off,
            shuffleMode: ShuffleMode(rawValue: saved.shuffleMode) ?? .off)
        else { return nil }
        return (queue, position)
    }

    private static func isReachable(_ item: QueueItem) -> Bool {
        guard let path = LocalPath.path(fromFileURI: item.uri) else { return true }
        return LocalPath.exists(path)
    }
}
