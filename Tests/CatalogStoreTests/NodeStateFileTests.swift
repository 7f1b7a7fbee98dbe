import CatalogStore
import Foundation
import GRDB
import Testing

@Suite("The node state file beside the catalog")
struct NodeStateFileTests {
    @Test("saves and reads back the play state, its position alone and the volume; 512-byte pages, WAL held by the node alone")
    func roundTrip() async throws {
        let temp = try TemporaryCatalog("state-file")
        defer { temp.remove() }
        let path = NodeStateFile.path(besideCatalog: temp.path)
        let file = try NodeStateFile(path: path)
        #expect(file.isNew)
        let (nothing, noVolume) = (try await file.savedPlayState(), try await file.savedVolume())
        #expect(nothing == nil && noVolume == nil)
        let state = PlayStateTests.state(entries: 3, current: 1)
        try await file.write(NodeStateChanges(playState: state, queueChanged: true, volume: 0.3))
        try await file.write(NodeStateChanges(position: .init(elapsed: 42, savedAt: state.savedAt + 10)))
        try file.close()

        let again = try NodeStateFile(path: path)
        #expect(!again.isNew)
        var expected = state
        expected.elapsed = 42
        expected.savedAt += 10
        let (read, volume) = (try await again.savedPlayState(), try await again.savedVolume())
        #expect(read == expected && volume == 0.3)
        try again.close()
        let settings = try await DatabaseQueue(path: path).read { db in
            (try Int.fetchOne(db, sql: "PRAGMA page_size"), try String.fetchOne(db, sql: "PRAGMA journal_mode"))
        }
        #expect(settings.0 == 512 && settings.1 == "wal")
    }

    @Test("changes laid over each other write what the newest says, the queue when either changed it")
    func merging() {
        let older = PlayStateTests.state(entries: 3, current: 0)
        var newer = older
        newer.currentIndex = 2
        var changes = NodeStateChanges(playState: older, queueChanged: true, volume: 0.2)
        changes.merge(NodeStateChanges(position: .init(elapsed: 7, savedAt: 1)))
        #expect(changes.playState?.elapsed == 7 && changes.playState?.savedAt == 1)
        changes.merge(NodeStateChanges(playState: newer, queueChanged: false))
        #expect(changes.playState == newer && changes.queueChanged && changes.volume == 0.2)
        var position = NodeStateChanges(position: .init(elapsed: 1, savedAt: 1))
        position.merge(NodeStateChanges(position: .init(elapsed: 2, savedAt: 2), volume: 0.9))
        #expect(position.playState == nil && position.position?.elapsed == 2 && position.volume == 0.9)
    }

    @Test("takes over the play state and volume an earlier version kept in the catalog, once, and removes them there")
    func takesOverFromTheCatalog() async throws {
        let temp = try TemporaryCatalog("state-takeover")
        defer { temp.remove() }
        let catalog = try temp.open()
        let state = PlayStateTests.state(entries: 4, current: 2)
        try await catalog.savePlayState(state, queueChanged: true)
        try await catalog.saveVolume(0.6)
        let file = try await NodeStateFile.beside(catalog)
        let (taken, takenVolume) = (try await file.savedPlayState(), try await file.savedVolume())
        #expect(taken == state && takenVolume == 0.6)
        let (left, leftVolume) = (try await catalog.savedPlayState(), try await catalog.savedVolume())
        #expect(left == nil && leftVolume == nil)
        try file.close()
        // A later start leaves the file alone.
        try await catalog.saveVolume(0.1)
        let again = try await NodeStateFile.beside(catalog)
        #expect(try await again.savedVolume() == 0.6)
        try again.close()
    }

    @Test("a file that is not a database is moved aside and the node starts without a saved state")
    func corruptFile() async throws {
        let temp = try TemporaryCatalog("state-corrupt")
        defer { temp.remove() }
        try FileManager.default.createDirectory(at: temp.directory, withIntermediateDirectories: true)
        let path = NodeStateFile.path(besideCatalog: temp.path)
        try Data(repeating: 0x41, count: 4096).write(to: URL(fileURLWithPath: path))
        let file = try NodeStateFile(path: path)
        #expect(try await file.savedPlayState() == nil)
        let names = try FileManager.default.contentsOfDirectory(atPath: temp.directory.path)
        #expect(names.contains { $0.hasPrefix("catalog.sqlite.state.corrupt-") }, "\(names)")
        try file.close()
    }
}
