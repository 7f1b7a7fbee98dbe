import ContentTree
import Foundation
import Logging
import Playback
import ServiceLifecycle

/// Recently Played and Favorites (contract 1.2): follows playback and the marks, and keeps both sections'
/// lists in the store, which announces each change to the content tree like any other catalog change.
///
/// It owns what it needs to decide: how long the current load has played. Whatever reaches it (a snapshot,
/// an event, a mark, a refresh) is handed to its own run loop, so its writes never delay now playing or a
/// command's reply.
final class ListeningHistory: Service, PlaybackObserver, FeedbackObserver {
    enum Input: Sendable {
        case snapshot(PlaybackSnapshot, at: ContinuousClock.Instant)
        case event(PlaybackEvent, at: ContinuousClock.Instant)
        case marked(String)
        case catalogChanged(itemsChanged: Bool)
        /// A load may have reached the threshold by now: the wake-up asked for at `deadline`, come `at`.
        case due(ContinuousClock.Instant, at: ContinuousClock.Instant)
    }

    /// Opens once the command subscriptions and capabilities are in place (S19).
    let ready: Latch
    let store: any ListeningHistoryStore
    /// How long one load must play to count as played (5 s in the contract).
    let threshold: Duration
    let logger: Logger
    private let inputs: AsyncStream<Input>
    private let continuation: AsyncStream<Input>.Continuation

    init(ready: Latch, store: any ListeningHistoryStore, threshold: Duration = .seconds(5), logger: Logger) {
        self.ready = ready
        self.store = store
        self.threshold = threshold
        self.logger = logger
        (inputs, continuation) = AsyncStream.makeStream(bufferingPolicy: .unbounded)
    }

    // MARK: - What reaches it, on its neighbours' tasks

    func playbackChanged(_ snapshot: PlaybackSnapshot, itemChanged: Bool = false) async {
        continuation.yield(.snapshot(snapshot, at: .now))
    }

    func playbackReported(_ event: PlaybackEvent) async { continuation.yield(.event(event, at: .now)) }

    func feedbackChanged(_ identifier: String, to feedback: ItemFeedback) { continuation.yield(.marked(identifier)) }

    // MARK: - Its run loop

    func run() async throws {
        await cancelWhenGracefulShutdown { [self] in
            await ready.wait()
            // Followed from before the catch-up, so no refresh committed meanwhile is missed.
            let changes = store.changes()
            // Items may have gone or come back while the node was down.
            await list(itemsChanged: false)
            await withDiscardingTaskGroup { group in
                group.addTask { [continuation] in
                    // The sections' own changes have no source: no loop.
                    for await diff in changes where diff.sourceIdentifier != nil
                        && diff.addedItems + diff.removedItems + diff.updatedItems > 0 {
                        continuation.yield(.catalogChanged(itemsChanged: diff.updatedItems > 0))
                    }
                }
                await follow(&group)
                group.cancelAll()
            }
        }
    }

    /// Works the inputs in order until cancelled, waking itself when the playing load reaches the threshold.
    ///
    /// Playing time is judged at the moment each input arrived, not when it is worked: behind a slow write,
    /// a pause that arrived before the mark still stops the count before it.
    private func follow(_ group: inout DiscardingTaskGroup) async {
        var loads = ListeningLoads(threshold: threshold)
        var wakeAt: ContinuousClock.Instant?
        for await input in inputs {
            let now: ContinuousClock.Instant
            switch input {
            case let .snapshot(snapshot, arrived):
                now = arrived
                loads.follow(snapshot, at: now)
            case let .event(event, arrived):
                now = arrived
                loads.follow(event, at: now)
            case let .due(deadline, arrived):
                now = arrived
                if wakeAt == deadline { wakeAt = nil }
            case .marked:
                do {
                    try await store.listFavorites()
                } catch {
                    logger.warning("could not list the favorites: \(error)")
                }
                continue
            case let .catalogChanged(itemsChanged):
                await list(itemsChanged: itemsChanged)
                continue
            }
            if let identifier = loads.takeCounted(at: now) { await recordPlay(of: identifier, loads.snapshot) }
            // One wake-up at a time, the earliest needed: a pause and a resume move the deadline later, and
            // an earlier wake-up then only finds it not yet reached and asks for the next.
            if let deadline = loads.deadline(at: now), wakeAt.map({ deadline < $0 }) ?? true {
                wakeAt = deadline
                // A timer of its own, not a call on the sweep: the threshold is seconds away, and the sweep's
                // 20 ms look would wake an otherwise idle daemon 250 times before it, for one wake-up here.
                group.addTask { [continuation] in
                    try? await Task.sleep(until: deadline, clock: .continuous)
                    continuation.yield(.due(deadline, at: .now))
                }
            }
        }
    }

    private func recordPlay(of identifier: String, _ snapshot: PlaybackSnapshot) async {
        let now = Date().timeIntervalSince1970
        var position: PlaybackPosition?
        if let item = snapshot.item, item.identifier == identifier, !item.isLiveStream {
            position = PlaybackPosition(
                elapsed: snapshot.elapsed(at: now), duration: snapshot.duration ?? item.duration, updatedAt: now)
        }
        do {
            try await store.recordPlay(of: identifier, at: now, position: position)
        } catch {
            logger.warning("could not add \(identifier) to Recently Played: \(error)")
        }
    }

    private func list(itemsChanged: Bool) async {
        do {
            try await store.listListeningHistory(itemsChanged: itemsChanged)
        } catch {
            logger.warning("could not list Recently Played and Favorites: \(error)")
        }
    }
}
