import CatalogStore
import ContentTree
import Foundation
import GRDB
import MediaNodeTesting
import Testing

/// The full integrity check after the start: a large cache opens at once, and a corrupt one is still
/// found, moved aside and rebuilt, while the node runs.
@Suite("catalog integrity checked in the background")
struct IntegrityCheckTests {
    /// A catalog of 3,000 items whose middle pages are overwritten, the header left valid.
    static func damagedCatalog(_ temp: TemporaryCatalog) async throws {
        let database = try temp.open()
        let source = CatalogSource(kind: .json, location: "test://damage-later")
        try await database.register(source)
        try await database.replaceContent(
            of: source.identifier, with: SyntheticCatalog.snapshot(source: source, items: 3000))
        try await database.pool.writeWithoutTransaction { db in _ = try db.checkpoint(.truncate) }
        try database.close()
        let handle = try FileHandle(forUpdating: URL(fileURLWithPath: temp.path))
        let size = try handle.seekToEnd()
        try handle.seek(toOffset: size / 2)
        try handle.write(contentsOf: Data(repeating: 0xFF, count: 16 * 4096))
        try handle.close()
    }

    static func asideFiles(_ temp: TemporaryCatalog) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: temp.directory.path).filter { $0.contains(".corrupt-") }
    }

    @Test("a damaged catalog opened with the check deferred is found, moved aside and rebuilt empty; subscribers hear the root changed")
    func deferredCheckRebuilds() async throws {
        let temp = try TemporaryCatalog("deferred-damage")
        defer { temp.remove() }
        try await Self.damagedCatalog(temp)

        let database = try CatalogDatabase(path: temp.path, integrityCheck: .deferred)
        #expect(try Self.asideFiles(temp).isEmpty, "nothing is read beyond the schema at open")
        // Browsing the damaged file keeps a connection to it; the rebuild must not leave it in use.
        #expect(try await database.childCount(of: ContentItem.rootIdentifier) > 0)
        var changes = database.changes().makeAsyncIterator()
        let aside = try #require(await database.verifyIntegrity())
        #expect(FileManager.default.fileExists(atPath: aside))
        #expect(try Self.asideFiles(temp).contains { $0.hasPrefix("catalog.sqlite.corrupt-") })
        let diff = await changes.next()
        #expect(diff?.changedContainers == [ContentItem.rootIdentifier])
        #expect(try await database.summary() == CatalogSummary(sources: 0, containers: 0, playables: 0))
        // The rebuilt catalog takes content again and passes the check.
        let source = CatalogSource(kind: .json, location: "test://after-rebuild")
        try await database.register(source)
        try await database.replaceContent(of: source.identifier, with: albumSnapshot(source, [("A", ["1"])]))
        #expect(try await database.item(at: [0, 0])?.title == "1")
        #expect(await database.verifyIntegrity() == nil)
        try database.close()
    }

    @Test("a healthy catalog passes the deferred check and stays where it is")
    func healthyCatalogStays() async throws {
        let temp = try TemporaryCatalog("deferred-healthy")
        defer { temp.remove() }
        do {
            let database = try temp.open()
            let source = CatalogSource(kind: .json, location: "test://healthy")
            try await database.register(source)
            try await database.replaceContent(of: source.identifier, with: albumSnapshot(source, [("A", ["1", "2"])]))
            try database.close()
        }
        let database = try CatalogDatabase(path: temp.path, integrityCheck: .deferred)
        #expect(await database.verifyIntegrity() == nil)
        #expect(try await database.summary().playables == 2)
        #expect(try Self.asideFiles(temp).isEmpty)
        try database.close()
    }

    @Test("a catalog an earlier run found corrupt but could not replace is moved aside at the next open")
    func markedCatalogIsMovedAside() async throws {
        let temp = try TemporaryCatalog("marked")
        defer { temp.remove() }
        do {
            let database = try temp.open()
            let source = CatalogSource(kind: .json, location: "test://marked")
            try await database.register(source)
            try await database.replaceContent(of: source.identifier, with: albumSnapshot(source, [("A", ["1"])]))
            try database.close()
        }
        try Data("page 7: btreeInitPage() returns error code 11".utf8)
            .write(to: URL(fileURLWithPath: temp.path + ".needs-rebuild"))
        let database = try CatalogDatabase(path: temp.path, integrityCheck: .deferred)
        #expect(try await database.summary().playables == 0)
        #expect(try Self.asideFiles(temp).contains { $0.hasPrefix("catalog.sqlite.corrupt-") })
        #expect(!FileManager.default.fileExists(atPath: temp.path + ".needs-rebuild"))
        try database.close()
    }
}
