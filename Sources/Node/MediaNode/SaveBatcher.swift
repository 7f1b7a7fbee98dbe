import CatalogStore
import ContentTree
import Foundation
import Logging
import ServiceLifecycle
import Synchronization

/// Where the node's own often-changing state is written: the play state, its place, the volume.
public protocol NodeStateStorage: Sendable {
    func savedPlayState() async throws -> SavedPlayState?
    func savedVolume() async throws -> Double?
    func write(_ changes: NodeStateChanges) async throws
}

extension NodeStateFile: NodeStateStorage {}

/// Where items' positions are kept, for the tree to show and for playing them again (the catalog).
public protocol PositionStorage: Sendable {
    func savePlaybackPositions(_ positions: [String: PlaybackPosition], onlyNewer: Bool) async throws
}

extension CatalogDatabase: PositionStorage {}

/// The node's saves, coalesced (MPD's idle flags, for the disk): what the resume store, the listener's
/// volume and playback progress hand it is written in one transaction per file for a burst of changes, at
/// once when nothing was written in the last second, else when that second is over. So commands streaming in
/// cost one small write a second, and steady playback one every progress interval.
///
/// It does not decide what is saved: the resume store owns the play state, playback progress the items'
/// positions, the listener's volume its level; each hands over its newest state, and this writes it. What a
/// reply reported is on disk within a second of it; at shutdown, after those services have stopped, it
/// writes what is left at once. Last before the transport in the group, so it stops after them.
final class SaveBatcher: Service, PlayStateMemory, VolumeMemory {
    private let storage: any NodeStateStorage
    private let positionStorage: (any PositionStorage)?
    private let interval: Duration
    /// Shared with playback progress: a full disk fails every save, and is one episode in the log.
    private let failures: FailureEpisode
    /// The state file's own: on a full disk its small commits may still fit where the catalog's do not.
    private let stateFailures = FailureEpisode()
    private let logger: Logger
    private let stateLane = SaveLane<NodeStateChanges> { older, newer in older.merge(newer) }
    private let positionLane = SaveLane<[String: PlaybackPosition]> { older, newer in
        older.merge(newer) { _, new in new }
    }
    /// Told which items' positions were written.
    private let positionsWritten = Mutex<(@Sendable ([String: PlaybackPosition]) -> Void)?>(nil)

    init(storage: any NodeStateStorage, positions: (any PositionStorage)?, interval: Duration = .seconds(1),
         failures: FailureEpisode, logger: Logger) {
        self.storage = storage
        self.positionStorage = positions
        self.interval = interval
        self.failures = failures
        self.logger = logger
    }

    // MARK: - PlayStateMemory, VolumeMemory

    func savedPlayState() async throws -> SavedPlayState? { try await storage.savedPlayState() }

    func savePlayState(_ saved: SavedPlayState, queueChanged: Bool) async throws {
        stateLane.add(NodeStateChanges(playState: saved, queueChanged: queueChanged))
    }

    func savePlayPosition(_ elapsed: Double, savedAt: Double) async throws {
        stateLane.add(NodeStateChanges(position: .init(elapsed: elapsed, savedAt: savedAt)))
    }

    func savedVolume() async throws -> Double? { try await storage.savedVolume() }

    func saveVolume(_ level: Double) async throws { stateLane.add(NodeStateChanges(volume: level)) }

    // MARK: - Items' positions

    /// Whether items' positions go through here (the node has a catalog file to keep them in).
    var keepsPositions: Bool { positionStorage != nil }

    /// Saves an item's position with the next write; `whenPositionsWritten` hears of it once it is written.
    func savePosition(_ position: PlaybackPosition, for identifier: String) {
        positionLane.add([identifier: position])
    }

    func whenPositionsWritten(_ handler: @escaping @Sendable ([String: PlaybackPosition]) -> Void) {
        positionsWritten.withLock { $0 = handler }
    }

    /// Writes everything handed over so far, now, and returns once it is written (or failed).
    func flush() async {
        await stateLane.writePending(writeState)
        await positionLane.writePending(writePositions)
    }

    // MARK: - Service

    func run() async throws {
        await carryOverPlace()
        await withDiscardingTaskGroup { group in
            group.addTask { [self] in await stateLane.run(interval: interval, write: writeState) }
            if positionStorage != nil {
                group.addTask { [self] in await positionLane.run(interval: interval, write: writePositions) }
            }
            // The services that hand saves over stop before this one: what they left is written now.
            try? await gracefulShutdown()
            stateLane.finish()
            positionLane.finish()
        }
    }

    /// After a kill the catalog may hold an older place for the item that was playing than the state file,
    /// which is saved every progress interval: the catalog takes the newer one, so the tree shows it and
    /// playing the item again starts there.
    private func carryOverPlace() async {
        guard let positionStorage,
              let saved = try? await storage.savedPlayState(), saved.state != "stopped",
              let current = saved.currentIndex, saved.entries.indices.contains(current)
        else { return }
        let place = PlaybackPosition(elapsed: saved.elapsed, duration: nil, updatedAt: saved.savedAt)
        do {
            try await positionStorage.savePlaybackPositions([saved.entries[current].identifier: place], onlyNewer: true)
        } catch {
            logger.warning("could not carry the saved place of \(saved.entries[current].identifier) over to the catalog: \(error)")
        }
    }

    @Sendable private func writeState(_ changes: NodeStateChanges) async -> Bool {
        do {
            try await storage.write(changes)
            if stateFailures.succeeded() { logger.notice("saving the play state again") }
            return true
        } catch {
            if stateFailures.failed() {
                logger.warning("could not save the play state: \(error); playback goes on, and saves are retried every \(interval) and logged again once one works")
            }
            return false
        }
    }

    @Sendable private func writePositions(_ positions: [String: PlaybackPosition]) async -> Bool {
        guard let positionStorage else { return true }
        do {
            try await positionStorage.savePlaybackPositions(positions, onlyNewer: false)
            if failures.succeeded() {
                logger.notice("saving positions again: the position of \(positions.keys.sorted().joined(separator: ", ")) is saved")
            }
            if let handler = positionsWritten.withLock({ $0 }) { handler(positions) }
            return true
        } catch {
            if failures.failed() {
                logger.warning(
                    "could not save the position of \(positions.keys.sorted().joined(separator: ", ")): \(error); playback goes on, saves are retried every \(interval) and logged again once one works")
            }
            return false
        }
    }
}
