import ContentTree
import Playback
import Synchronization

/// The node's content state beside the manager: changes waiting for the next flush, and what the tree
/// shows of playback (the loaded item, its length, the state to notice a pause).
final class NodeContent: Sendable {
    let manager: PlayableContentManager
    let settings: ContentSettings
    /// Yields when something waits to be flushed; a burst coalesces into one wake-up.
    let wake: AsyncStream<Void>
    private let wakeContinuation: AsyncStream<Void>.Continuation
    /// Containers whose first pages to load behind the replies (S28), for `runPrefetches`.
    private let prefetches: AsyncStream<[String]>
    private let prefetchRequests: AsyncStream<[String]>.Continuation
    private let state = Mutex(State())

    struct State {
        var diff = CatalogDiff()
        var progress: Set<String> = []
        /// The state and item of the last snapshot, to notice a pause.
        var lastState: PlaybackState = .stopped
        var durations: [String: Double] = [:]
        /// The loaded item, which the downloads quota never evicts.
        var loadedIdentifier: String?
    }

    init(manager: PlayableContentManager, settings: ContentSettings) {
        self.manager = manager
        self.settings = settings
        (wake, wakeContinuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        (prefetches, prefetchRequests) = AsyncStream.makeStream(bufferingPolicy: .unbounded)
    }

    /// Loads the first pages of a browsed node's containers (S28), behind the replies.
    func prefetch(_ containers: [String]) {
        guard !containers.isEmpty else { return }
        prefetchRequests.yield(containers)
    }

    /// Works the prefetches at low priority, several at once, until cancelled.
    func runPrefetches() async {
        await withDiscardingTaskGroup { group in
            for await containers in prefetches {
                group.addTask(priority: .low) { [manager] in await manager.prefetch(containers) }
            }
        }
    }

    /// Notes a committed change for the next flush; browses stop answering what it touches from the
    /// published documents at once.
    func mark(_ diff: CatalogDiff) {
        manager.catalogChanged(diff)
        state.withLock { $0.diff.merge(diff) }
        wakeContinuation.yield()
    }

    func markProgress(_ identifier: String) {
        manager.progressChanged([identifier])
        state.withLock { _ = $0.progress.insert(identifier) }
        wakeContinuation.yield()
    }

    /// Whether a position saved while playing moved far enough from what the published lists show to
    /// republish them (see `ContentSettings.progressStep`); false when no published list shows it.
    func movedVisibly(_ identifier: String, to position: PlaybackPosition) async -> Bool {
        guard let shown = await manager.shownProgress(of: identifier), let duration = position.duration,
              duration > 0, position.progress >= 0 else { return false }
        let moved = abs(position.progress - max(0, shown))
        let step = Double(settings.progressStep.components.seconds)
            + Double(settings.progressStep.components.attoseconds) / 1e18
        return moved >= settings.progressStepFraction && moved * duration >= step
    }

    /// Takes everything marked since the last flush.
    func takePending() -> (CatalogDiff, Set<String>) {
        state.withLock { state in
            defer {
                state.diff = CatalogDiff()
                state.progress = []
            }
            return (state.diff, state.progress)
        }
    }

    /// Records a snapshot; returns the state before it.
    func follow(_ snapshot: PlaybackSnapshot) -> PlaybackState {
        state.withLock { state in
            defer {
                state.lastState = snapshot.state
                state.loadedIdentifier = snapshot.item?.identifier
            }
            if let item = snapshot.item, let duration = snapshot.duration ?? item.duration {
                state.durations = [item.identifier: duration]
            }
            return state.lastState
        }
    }

    var loadedIdentifier: String? { state.withLock { $0.loadedIdentifier } }

    func duration(of identifier: String) -> Double? { state.withLock { $0.durations[identifier] } }

    func finish() { wakeContinuation.finish() }
}
