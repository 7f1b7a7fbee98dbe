import CatalogStore
import ContentTree
import Foundation
import Logging
import ServiceLifecycle
import Synchronization
import Testing
@testable import MediaNode

/// The coalesced saves on storages that keep each write (one transaction each) in memory: no SQLite.
@Suite("The node's saves, coalesced")
struct SaveBatcherTests {
    final class Storage: NodeStateStorage, PositionStorage {
        struct Write: Sendable {
            var changes: NodeStateChanges
            var at: ContinuousClock.Instant
        }

        private let state = Mutex<(writes: [Write], positionWrites: [[String: PlaybackPosition]], failing: Bool)>(([], [], false))
        var writes: [Write] { state.withLock { $0.writes } }
        var positionWrites: [[String: PlaybackPosition]] { state.withLock { $0.positionWrites } }
        func fail(_ failing: Bool) { state.withLock { $0.failing = failing } }

        func savedPlayState() async throws -> SavedPlayState? { nil }
        func savedVolume() async throws -> Double? { nil }
        func write(_ changes: NodeStateChanges) async throws {
            try state.withLock { state in
                if state.failing { throw CocoaError(.fileWriteOutOfSpace) }
                state.writes.append(Write(changes: changes, at: .now))
            }
        }
        func savePlaybackPositions(_ positions: [String: PlaybackPosition], onlyNewer: Bool) async throws {
            try state.withLock { state in
                if state.failing { throw CocoaError(.fileWriteOutOfSpace) }
                state.positionWrites.append(positions)
            }
        }
    }

    /// Long beside the machine's own delays (a loaded machine wakes a task hundreds of milliseconds late):
    /// what is told apart here is "at once" from "an interval later".
    static let interval = Duration.seconds(2)

    /// Runs the batcher in a group until `body` returns, then stops it gracefully.
    static func run(_ batcher: SaveBatcher, _ body: () async throws -> Void) async throws {
        let group = ServiceGroup(configuration: .init(services: [batcher], logger: Logger(label: "test")))
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            try await body()
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
        }
    }

    static func batcher(_ storage: Storage) -> SaveBatcher {
        SaveBatcher(storage: storage, positions: storage, interval: interval, failures: FailureEpisode(), logger: Logger(label: "test"))
    }

    @Test("a lone change is written at once; a burst of 200 is one write per interval, the last one the newest")
    func coalesces() async throws {
        let storage = Storage()
        let batcher = Self.batcher(storage)
        try await Self.run(batcher) {
            let sent = ContinuousClock.now
            try await batcher.saveVolume(0.5)
            try await waitFor { storage.writes.count == 1 }
            #expect(storage.writes[0].at - sent < Self.interval / 2, "a change after a quiet time waits for nothing")
            let burst = ContinuousClock.now
            for step in 1...200 {
                try await batcher.saveVolume(Double(step) / 200)
                try await Task.sleep(for: .milliseconds(15))
            }
            let lasted = ContinuousClock.now - burst
            try await waitFor { storage.writes.last?.changes.volume == 1.0 }
            let during = storage.writes.dropFirst()
            #expect(Double(during.count) <= lasted / Self.interval + 2, "\(during.count) writes in \(lasted)")
            for (earlier, later) in zip(storage.writes, storage.writes.dropFirst()) {
                #expect(later.at - earlier.at >= Self.interval - .milliseconds(20))
            }
        }
    }

    @Test("graceful shutdown writes what is pending at once, without waiting out the interval")
    func shutdownWritesAtOnce() async throws {
        let storage = Storage()
        let batcher = Self.batcher(storage)
        var stopping = ContinuousClock.now
        try await Self.run(batcher) {
            try await batcher.saveVolume(0.1)
            try await waitFor { storage.writes.count == 1 }
            try await batcher.savePlayPosition(12, savedAt: 1)
            try await batcher.saveVolume(0.2)
            stopping = .now
        }
        #expect(storage.writes.count == 2 && storage.writes[1].changes.volume == 0.2)
        #expect(storage.writes[1].changes.position?.elapsed == 12)
        #expect(ContinuousClock.now - stopping < Self.interval * 0.75, "the last write waited for the interval")
    }

    @Test("items' positions handed over together are written together, the newest of each, and announced once written")
    func positions() async throws {
        let storage = Storage()
        let batcher = Self.batcher(storage)
        let announced = Mutex<Set<String>>([])
        batcher.whenPositionsWritten { positions in announced.withLock { $0.formUnion(positions.keys) } }
        try await Self.run(batcher) {
            batcher.savePosition(PlaybackPosition(elapsed: 1, duration: 10, updatedAt: 1), for: "a")
            try await waitFor { storage.positionWrites.count == 1 }
            batcher.savePosition(PlaybackPosition(elapsed: 2, duration: 10, updatedAt: 2), for: "b")
            batcher.savePosition(PlaybackPosition(elapsed: 3, duration: 10, updatedAt: 3), for: "c")
            batcher.savePosition(PlaybackPosition(elapsed: 4, duration: 10, updatedAt: 4), for: "b")
            try await waitFor { storage.positionWrites.count == 2 }
            #expect(storage.positionWrites[1].mapValues(\.elapsed) == ["b": 4, "c": 3])
            try await waitFor { announced.withLock { $0 } == ["a", "b", "c"] }
        }
    }

    @Test("a failed write keeps its changes under newer ones and is tried again")
    func retries() async throws {
        let storage = Storage()
        let batcher = Self.batcher(storage)
        try await Self.run(batcher) {
            storage.fail(true)
            let state = SavedPlayState(entries: [.init(identifier: "t", originalIndex: 0, container: nil)], currentIndex: 0,
                                       elapsed: 5, repeatMode: "off", shuffleMode: "off", rate: 1, state: "playing", context: [],
                                       savedAt: 1)
            try await batcher.savePlayState(state, queueChanged: true)
            try await Task.sleep(for: .milliseconds(100))
            try await batcher.savePlayPosition(9, savedAt: 2)
            try await Task.sleep(for: Self.interval * 2)
            #expect(storage.writes.isEmpty)
            storage.fail(false)
            try await waitFor { !storage.writes.isEmpty }
            let written = storage.writes[0].changes
            #expect(written.queueChanged && written.playState?.entries == state.entries && written.playState?.elapsed == 9)
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
