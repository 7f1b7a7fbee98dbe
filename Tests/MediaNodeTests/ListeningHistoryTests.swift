import ContentTree
import Foundation
import Logging
import Playback
import ServiceLifecycle
import Synchronization
import Testing
@testable import MediaNode

/// The listening history on its own: what it asks of its store when playback and marks reach it through
/// its protocols, with a recording stand-in for the catalog file.
@Suite("The listening history counts one load's playing time and tells its store")
struct ListeningHistoryTests {
    /// Records what the service asked of the store; `slow` makes every call take that long.
    final class Store: ListeningHistoryStore {
        let recorder = ServiceSeamTests.Recorder()
        let slow: Duration
        let stream: AsyncStream<CatalogDiff>
        let diffs: AsyncStream<CatalogDiff>.Continuation
        private let positions = Mutex<[PlaybackPosition]>([])

        init(slow: Duration = .zero) {
            self.slow = slow
            (stream, diffs) = AsyncStream.makeStream()
        }

        var played: [PlaybackPosition] { positions.withLock { $0 } }

        func recordPlay(of identifier: String, at time: Double, position: PlaybackPosition?) async throws {
            try await Task.sleep(for: slow)
            if let position { positions.withLock { $0.append(position) } }
            recorder.record("played \(identifier)")
        }
        func listFavorites() async throws { recorder.record("favorites") }
        func listListeningHistory(itemsChanged: Bool) async throws { recorder.record("listed \(itemsChanged)") }
        func changes() -> AsyncStream<CatalogDiff> { stream }
    }

    static func snapshot(_ identifier: String?, _ state: PlaybackState, elapsed: Double = 0) -> PlaybackSnapshot {
        PlaybackSnapshot(
            state: state, item: identifier.map { QueueItem(identifier: $0, uri: "file:///\($0).ogg", duration: 100) },
            elapsed: elapsed, timestamp: Date().timeIntervalSince1970, playbackRate: state == .playing ? 1 : 0,
            duration: identifier == nil ? nil : 100)
    }

    /// Runs the service in a group of its own around `body`, then stops it.
    static func running(_ history: ListeningHistory, _ body: () async throws -> Void) async throws {
        let group = ServiceGroup(configuration: .init(services: [history], logger: Logger(label: "test")))
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            try await body()
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
        }
    }

    static func eventually(_ recorder: ServiceSeamTests.Recorder, count: Int, within limit: Duration = .seconds(20)) async throws {
        let deadline = ContinuousClock.now + limit
        while recorder.recorded.count < count, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
    }

    static func history(_ store: Store, threshold: Duration = .milliseconds(300)) -> ListeningHistory {
        let ready = Latch()
        ready.open()
        return ListeningHistory(ready: ready, store: store, threshold: threshold, logger: Logger(label: "test"))
    }

    @Test("an item that plays for the threshold is played once, at the mark, with where it stood; paused time does not count")
    func countsPlayingTimeOnly() async throws {
        let store = Store()
        let history = Self.history(store, threshold: .seconds(1))
        try await Self.running(history) {
            try await Self.eventually(store.recorder, count: 1)
            #expect(store.recorder.recorded == ["listed false"], "the sections are listed again at start")
            let start = ContinuousClock.now
            await history.playbackChanged(Self.snapshot("a", .playing, elapsed: 40))
            await history.playbackReported(.trackStarted(identifier: "a"))
            try await Task.sleep(for: .milliseconds(300))
            await history.playbackChanged(Self.snapshot("a", .paused, elapsed: 40.3))
            // On a loaded machine the 300 ms can stretch: what counts is the playing time really given.
            let playedBeforePause = ContinuousClock.now - start
            try await Task.sleep(for: .milliseconds(600))
            if playedBeforePause < .milliseconds(900) {
                #expect(store.recorder.recorded.count == 1, "paused after \(playedBeforePause) of play: not yet played")
            }
            let resumed = ContinuousClock.now
            await history.playbackChanged(Self.snapshot("a", .playing, elapsed: 40.3))
            try await Self.eventually(store.recorder, count: 2)
            let elapsed = ContinuousClock.now - start
            #expect(store.recorder.recorded.last == "played a")
            // 300 ms played, 600 ms paused, then the other 700 ms: the pause does not count.
            #expect(elapsed >= .milliseconds(1550) && elapsed < .seconds(5), "counted after \(elapsed)")
            #expect(ContinuousClock.now - resumed >= .milliseconds(100), "the count went on from where the pause left it")
            // Where it stood when counted: 40.3 s plus the time played since the resume, at least what the
            // second was short of before the pause (0.7 s when the 300 ms sleep kept time; less when it ran late).
            let stood = store.played.first?.elapsed ?? 0
            let seconds = { (duration: Duration) in
                Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
            }
            let sinceResume = seconds(ContinuousClock.now - resumed)
            let left = max(0, 1.0 - seconds(playedBeforePause))
            #expect(stood >= 40.3 + left - 0.05 && stood <= 40.3 + sinceResume + 0.05,
                    "stood at \(stood), \(sinceResume) s after the resume, \(left) s of the second left at the pause")
            try await Task.sleep(for: .milliseconds(400))
            #expect(store.recorder.recorded.count == 2, "once per load")
        }
    }

    @Test("a new load starts the count again: another item, or the same one loaded again")
    func newLoadsCountAgain() async throws {
        let store = Store()
        let history = Self.history(store, threshold: .milliseconds(600))
        try await Self.running(history) {
            try await Self.eventually(store.recorder, count: 1)
            await history.playbackChanged(Self.snapshot("a", .playing))
            await history.playbackReported(.trackStarted(identifier: "a"))
            try await Task.sleep(for: .milliseconds(100))
            // Skipped before the mark: b starts from nothing.
            await history.playbackReported(.trackEnded(identifier: "a", reason: .skipped, position: 0.2))
            await history.playbackChanged(Self.snapshot("b", .playing))
            await history.playbackReported(.trackStarted(identifier: "b"))
            try await Self.eventually(store.recorder, count: 2)
            #expect(store.recorder.recorded.last == "played b")
            // Repeat one: b ends and sounds again, a second load of it.
            await history.playbackReported(.trackEnded(identifier: "b", reason: .finished, position: 100))
            await history.playbackReported(.trackStarted(identifier: "b"))
            try await Self.eventually(store.recorder, count: 3)
            #expect(store.recorder.recorded == ["listed false", "played b", "played b"])
        }
    }

    /// Records each mark the feedback book hands on.
    final class Marks: FeedbackObserver {
        let recorder = ServiceSeamTests.Recorder()
        func feedbackChanged(_ identifier: String, to feedback: ItemFeedback) {
            recorder.record("\(identifier) liked \(feedback.liked) bookmarked \(feedback.bookmarked)")
        }
    }

    @Test("the feedback book tells its observer each mark it kept, with the item's marks afterwards; a rating is no mark")
    func feedbackBookTellsItsObserver() async throws {
        let marks = Marks()
        let book = FeedbackBook(catalog: nil, observer: marks, logger: Logger(label: "test"))
        _ = try await book.set(.like, active: true, for: "a")
        _ = try await book.set(.bookmark, active: true, for: "a")
        _ = try await book.set(.dislike, active: true, for: "a")
        try await book.setRating(4, for: "a")
        #expect(marks.recorder.recorded == [
            "a liked true bookmarked false", "a liked true bookmarked true", "a liked false bookmarked true",
        ])
    }

    @Test("what reaches it returns at once while its store is slow; marks and refreshes list the sections again")
    func handsOnAtOnce() async throws {
        let store = Store(slow: .seconds(1))
        let history = Self.history(store, threshold: .zero)
        try await Self.running(history) {
            try await Self.eventually(store.recorder, count: 1)
            let start = ContinuousClock.now
            for index in 0..<3 {
                await history.playbackChanged(Self.snapshot("item\(index)", .playing))
                await history.playbackReported(.trackStarted(identifier: "item\(index)"))
            }
            history.feedbackChanged("item1", to: ItemFeedback(liked: true))
            #expect(ContinuousClock.now - start < .milliseconds(100), "observing waited for the store")
            store.diffs.yield(CatalogDiff(sourceIdentifier: "local:music", updatedItems: 1))
            // The section's own change (no source) is not followed: it would loop.
            store.diffs.yield(CatalogDiff(changedContainers: [ContentItem.Section.recent]))
            // Three plays of a second each, then the mark and the refresh, in the order they came.
            try await Self.eventually(store.recorder, count: 6, within: .seconds(20))
        }
        #expect(store.recorder.recorded.prefix(4) == ["listed false", "played item0", "played item1", "played item2"])
        #expect(store.recorder.recorded.contains("favorites"))
        #expect(store.recorder.recorded.contains("listed true"))
        #expect(store.recorder.recorded.filter { $0.hasPrefix("listed") }.count == 2)
    }
}
