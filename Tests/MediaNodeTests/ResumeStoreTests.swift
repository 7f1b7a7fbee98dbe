import CatalogStore
import ContentTree
import Foundation
import Logging
import MediaNodeTesting
import Playback
import ServiceLifecycle
import Synchronization
import Testing
@testable import MediaNode

/// The resume store on its own parts: a controller on the in-memory engine, the in-memory catalog, and a
/// memory that keeps what is saved in a variable; no broker, no GStreamer, no SQLite.
@Suite("The resume store, through its protocols")
struct ResumeStoreTests {
    final class Memory: PlayStateMemory {
        private let state: Mutex<SavedPlayState?>
        private let saves = Mutex<[String]>([])
        init(_ saved: SavedPlayState?) { state = Mutex(saved) }
        var saved: SavedPlayState? { state.withLock { $0 } }
        var writes: [String] { saves.withLock { $0 } }
        func savedPlayState() async throws -> SavedPlayState? { saved }
        func savePlayState(_ saved: SavedPlayState, queueChanged: Bool) async throws {
            state.withLock { $0 = saved }
            saves.withLock { $0.append(queueChanged ? "state and queue" : "state") }
        }
        func savePlayPosition(_ elapsed: Double, savedAt: Double) async throws {
            state.withLock { $0?.elapsed = elapsed }
            saves.withLock { $0.append("position") }
        }
    }

    static func catalog(_ identifiers: [String]) -> InMemoryContentCatalog {
        let catalog = InMemoryContentCatalog()
        catalog.add(.container("album:A", title: "A"))
        for identifier in identifiers {
            catalog.add(
                ContentItem(identifier: identifier, title: identifier, isPlayable: true,
                            uri: "http://127.0.0.1:9/\(identifier).ogg", duration: 200),
                under: "album:A")
        }
        return catalog
    }

    static func saved(state: String = "playing") -> SavedPlayState {
        SavedPlayState(
            entries: ["t:3", "t:1", "t:2"].enumerated().map { .init(identifier: $1, originalIndex: [2, 0, 1][$0], container: "album:A") },
            currentIndex: 1, elapsed: 30, repeatMode: "one", shuffleMode: "items", rate: 1, state: state,
            context: ["section:library", "album:A"], savedAt: 0)
    }

    /// Runs the store in a group until `body` returns, then stops it gracefully.
    static func run(_ store: ResumeStore, _ body: () async throws -> Void) async throws {
        let group = ServiceGroup(configuration: .init(services: [store], logger: Logger(label: "test")))
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            await store.restored.wait()
            try await body()
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
        }
    }

    static func store(_ memory: Memory, catalog: InMemoryContentCatalog, engine: InMemoryAudioEngine,
                      playback: PlaybackController, mode: ResumeMode = .paused) -> ResumeStore {
        let ready = Latch()
        ready.open()
        return ResumeStore(
            memory: memory, playback: playback, items: QueueItemMaker(catalog: catalog, downloads: nil),
            mode: mode, ready: ready, logger: Logger(label: "test"))
    }

    @Test("puts the saved queue back paused, with its context, and saves it paused at shutdown")
    func restoresPaused() async throws {
        let engine = InMemoryAudioEngine(clock: ManualPlaybackClock())
        let playback = PlaybackController(engine: engine)
        let memory = Memory(Self.saved())
        let store = Self.store(memory, catalog: Self.catalog(["t:1", "t:2", "t:3"]), engine: engine, playback: playback)
        try await Self.run(store) {
            let snapshot = await playback.snapshot
            #expect(snapshot.state == .paused && snapshot.item?.identifier == "t:1" && snapshot.elapsed == 30)
            #expect(snapshot.queue.identifiers == ["t:3", "t:1", "t:2"] && snapshot.queue.repeatMode == .one)
            #expect(snapshot.queue.context == ["section:library", "album:A"])
        }
        #expect(memory.saved?.state == "paused", "a node restored paused saves paused at shutdown")
        #expect(memory.saved?.entries == Self.saved().entries && memory.saved?.elapsed == 30)
    }

    @Test("a change reported through PlaybackObserver is saved; the queue's rows only when the queue changed")
    func savesChanges() async throws {
        let engine = InMemoryAudioEngine(clock: ManualPlaybackClock())
        let playback = PlaybackController(engine: engine)
        let memory = Memory(Self.saved(state: "paused"))
        let store = Self.store(memory, catalog: Self.catalog(["t:1", "t:2", "t:3"]), engine: engine, playback: playback)
        let follower = Task { for await snapshot in playback.snapshots { await store.playbackChanged(snapshot) } }
        defer { follower.cancel() }
        try await Self.run(store) {
            #expect(await playback.setRepeatMode(.all) == .success)
            try await waitFor { memory.saved?.repeatMode == "all" }
            let writes = memory.writes
            #expect(await playback.setShuffleMode(.off) == .success)
            try await waitFor { memory.saved?.shuffleMode == "off" }
            #expect(memory.saved?.entries.map(\.identifier) == ["t:1", "t:2", "t:3"])
            #expect(memory.writes.dropFirst(writes.count).contains("state and queue"))
        }
    }

    @Test("--resume off and a stopped save start stopped; an item gone from the catalog is left out")
    func stoppedAndGone() async throws {
        for (mode, saved, catalog, expected) in [
            (ResumeMode.off, Self.saved(), ["t:1", "t:2", "t:3"], [String]()),
            (.paused, Self.saved(state: "stopped"), ["t:1", "t:2", "t:3"], []),
            (.paused, Self.saved(), ["t:2", "t:3"], ["t:3", "t:2"]),
            (.paused, Self.saved(), ["t:3"], []),
        ] {
            let engine = InMemoryAudioEngine(clock: ManualPlaybackClock())
            let playback = PlaybackController(engine: engine)
            let store = Self.store(
                Memory(saved), catalog: Self.catalog(catalog), engine: engine, playback: playback, mode: mode)
            try await Self.run(store) {
                let snapshot = await playback.snapshot
                #expect(snapshot.queue.identifiers == expected, "\(mode) \(saved.state) \(catalog)")
                if !expected.isEmpty {
                    #expect(snapshot.item?.identifier == "t:2" && snapshot.elapsed == 0 && snapshot.state == .paused)
                }
            }
        }
    }
}

private func waitFor(_ condition: () -> Bool) async throws {
    let deadline = ContinuousClock.now + .seconds(10)
    while !condition() {
        guard ContinuousClock.now < deadline else {
            Issue.record("condition never held")
            return
        }
        try await Task.sleep(for: .milliseconds(5))
    }
}
