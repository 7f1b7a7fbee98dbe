import ContentTree
import Foundation
import GRDB
import MediaNodeTesting
import Testing
@testable import CatalogStore

@Suite("chapters in a catalog file from before them")
struct ChapterMigrationTests {
    @Test("a library scanned before chapters gets them at its next scan, and podcast feeds are read again in full")
    func earlierFileGetsChapters() async throws {
        let music = try AudioFixtures.makeTemporaryDirectory("chapters-upgrade")
        let temp = try TemporaryCatalog("chapters-upgrade")
        defer {
            temp.remove()
            try? FileManager.default.removeItem(at: music)
        }
        let book = try await AudioFixtures.writeChapteredBook(ChapterScanTests.chapters, named: "book.ogg", title: "Voyage", in: music)
        let provider = LocalFolderProvider(roots: [music])
        let feed = CatalogSource(kind: .podcast, location: "https://example.net/feed.xml")
        var info = stat()
        try #require(stat(book.path, &info) == 0)
        let (size, modified) = (Int64(info.st_size), LocalFolderProvider.modificationTime(info))

        // The file as the version before chapters left it: the book scanned, unchanged since, and a feed's hash.
        var configuration = Configuration()
        configuration.prepareDatabase { db in db.add(function: SearchKey.function) }
        let earlier = try DatabasePool(path: temp.path, configuration: configuration)
        try CatalogSchema.migrator.migrate(earlier, upTo: "loudness: tags and measurements")
        try await earlier.write { db in
            for source in [provider.source, feed] {
                try db.execute(
                    sql: """
                        INSERT INTO source (identifier, kind, location, mount, contentHash, etag, lastSuccessAt)
                        VALUES (?, ?, ?, ?, 'hash', '"v1"', 1)
                        """,
                    arguments: [source.identifier, source.kind.rawValue, source.location, source.mount])
            }
            try db.execute(
                sql: "INSERT INTO local_file (sourceIdentifier, path, size, modified, title) VALUES (?, ?, ?, ?, 'Voyage')",
                arguments: [provider.source.identifier, book.path, size, modified])
        }
        try earlier.close()

        let database = try temp.open()
        let state = try await database.syncState(for: feed.identifier)
        #expect(state.contentHash == nil && state.etag == nil, "the feed is parsed again at its next refresh")
        let report = await CatalogRefresher(database: database).refresh(provider)
        guard case .updated = report else {
            Issue.record("the unchanged book was not read again: \(report)")
            return
        }
        let items = try await ChapterScanTests.itemsByTitle(database)
        #expect(items["Voyage"]?.chapters?.map(\.title) == ["Opening", "The Crossing", "Landfall"])
        try database.close()
    }
}
