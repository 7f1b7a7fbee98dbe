import CatalogStore
import ContentTree
import Foundation
import GRDB
import GRDBSQLite
import Testing

/// The fleet rig's catalogs: a copy of one file held in memory by each node.
@Suite("A catalog in memory, copied from a file")
struct InMemoryCatalogTests {
    @Test("browses what the file held, keeps what it is told in memory only, and leaves the file and its folder untouched")
    func copyInMemory() async throws {
        let temp = try TemporaryCatalog("in-memory")
        defer { temp.remove() }
        let (file, source) = try await Self.catalog(in: temp, [("One", ["a", "b"]), ("Two", ["c"])])
        let track = "\(source.identifier)/One/a"

        let stands = temp.directory.appendingPathComponent("node-1.sqlite").path
        let memory = try CatalogDatabase.inMemory(copying: file, standingFor: stands)
        #expect(memory.isInMemory && memory.path == stands)
        #expect(try await allChildren(memory, of: "\(source.identifier)/One").map(\.title) == ["a", "b"])
        #expect(try await memory.childCount(of: "\(source.identifier)/Two") == 1)
        #expect(try await memory.search("b", limit: 5).items.map(\.identifier) == ["\(source.identifier)/One/b"])
        #expect(try await memory.item(identifier: track)?.title == "a")

        try await memory.savePlaybackPosition(PlaybackPosition(elapsed: 42, duration: 100, updatedAt: 1), for: track)
        #expect(try await memory.playbackPosition(for: track)?.elapsed == 42)
        #expect(try await file.playbackPosition(for: track) == nil, "a write to the copy reached the file")
        #expect(await memory.verifyIntegrity() == nil)

        let state = try NodeStateFile.inMemory(beside: memory)
        try await state.write(NodeStateChanges(volume: 0.4))
        #expect(try await state.savedVolume() == 0.4)
        #expect(!state.isNew)

        // A copy of an empty one, as the rig makes for each node, starts empty and keeps its own.
        let template = try NodeStateFile.inMemory(beside: memory)
        let copies = try (0..<2).map { _ in try NodeStateFile.inMemory(copying: template, beside: memory) }
        #expect(try await copies[0].savedVolume() == nil)
        try await copies[0].write(NodeStateChanges(volume: 0.7))
        #expect(try await copies[0].savedVolume() == 0.7)
        #expect(try await copies[1].savedVolume() == nil, "a write to one copy reached another")
        #expect(try await template.savedVolume() == nil, "a write to a copy reached the template")

        // Nothing was written where the copies stand.
        let files = try FileManager.default.contentsOfDirectory(atPath: temp.directory.path)
        #expect(!files.contains { $0.hasPrefix("node-1") }, "\(files)")
        try memory.close()
        try file.close()
    }

    @Test("a read between two browses does not make the browse compile its statement again")
    func readsKeepCompiledStatements() async throws {
        let temp = try TemporaryCatalog("in-memory-reads")
        defer { temp.remove() }
        let (file, source) = try await Self.catalog(in: temp, [("One", ["a", "b"])])
        let memory = try CatalogDatabase.inMemory(copying: file, standingFor: temp.directory.appendingPathComponent("node.sqlite").path)
        let album = "\(source.identifier)/One"

        #expect(try await memory.children(of: album, offset: 0, limit: 10).items.map(\.title) == ["a", "b"])
        // Reads of other kinds, between two pages: the item by its location, a position, the volume.
        _ = try await memory.item(uri: "file:///nowhere.ogg")
        _ = try await memory.playbackPosition(for: "\(album)/a")
        _ = try await memory.savedVolume()
        #expect(try await memory.children(of: album, offset: 1, limit: 10).items.map(\.title) == ["b"])

        // A statement SQLite had to compile again counts it (GRDB's read on a queue sets and clears
        // `PRAGMA query_only`, which expires every statement the connection holds).
        let compiledAgain = try await memory.pool.writeWithoutTransaction { db in
            let page = try db.cachedStatement(sql: CatalogDatabase.childPageSQL)
            return sqlite3_stmt_status(page.sqliteStatement, SQLITE_STMTSTATUS_REPREPARE, 0)
        }
        #expect(compiledAgain == 0)
        try memory.close()
        try file.close()
    }

    @Test("many catalogs in memory reading at once share about a thread per core, not a thread each")
    func catalogsShareThreads() async throws {
        let temp = try TemporaryCatalog("in-memory-threads")
        defer { temp.remove() }
        let (file, _) = try await Self.catalog(in: temp, [("One", ["a"])])
        let catalogs = try (0..<48).map { index in
            try CatalogDatabase.inMemory(copying: file, standingFor: temp.directory.appendingPathComponent("node-\(index).sqlite").path)
        }
        // Each read keeps its thread busy for 20 ms, so that dispatch, were each catalog's queue to overcommit as
        // a GRDB queue of its own does, would give every one waiting a thread (48 here, 264 in a 10,000-node rig).
        let threads = try await withThrowingTaskGroup(of: UInt.self) { group in
            for catalog in catalogs {
                group.addTask {
                    try await catalog.pool.read { db in
                        let until = DispatchTime.now().uptimeNanoseconds + 20_000_000
                        while DispatchTime.now().uptimeNanoseconds < until { _ = try Int.fetchOne(db, sql: "SELECT 1") }
                        return UInt(pthread_self())
                    }
                }
            }
            return try await group.reduce(into: Set<UInt>()) { $0.insert($1) }
        }
        #expect(threads.count <= 16, "\(threads.count) threads ran the reads of 48 catalogs")
        for catalog in catalogs { try catalog.close() }
        try file.close()
    }

    @Test("a copy keeps the page size of its file (the rig's template has pages of 1 KiB)")
    func copyKeepsPageSize() async throws {
        let temp = try TemporaryCatalog("in-memory-pages")
        defer { temp.remove() }
        let (written, source) = try await Self.catalog(in: temp, [("One", ["a", "b"])])
        try await written.pool.writeWithoutTransaction { db in _ = try db.checkpoint(.truncate) }
        try written.close()
        let small = try DatabaseQueue(path: temp.path)
        try await small.writeWithoutTransaction { db in
            _ = try String.fetchOne(db, sql: "PRAGMA journal_mode = DELETE")
            try db.execute(sql: "PRAGMA page_size = 1024")
            try db.execute(sql: "VACUUM")
        }
        try small.close()

        let file = try temp.open()
        let memory = try CatalogDatabase.inMemory(copying: file, standingFor: temp.directory.appendingPathComponent("node.sqlite").path)
        #expect(try await memory.pool.read { db in try Int.fetchOne(db, sql: "PRAGMA page_size") } == 1024)
        #expect(try await memory.children(of: "\(source.identifier)/One", offset: 0, limit: 10).items.map(\.title) == ["a", "b"])
        try memory.close()
        try file.close()
    }

    /// A catalog file in `temp` with one local source holding `albums` (each a title and its tracks).
    static func catalog(in temp: TemporaryCatalog, _ albums: [(String, [String])]) async throws -> (CatalogDatabase, CatalogSource) {
        let source = CatalogSource(kind: .local, location: "/music")
        let file = try temp.open()
        try await file.register(source)
        try await file.replaceContent(of: source.identifier, with: albumSnapshot(source, albums))
        return (file, source)
    }
}
