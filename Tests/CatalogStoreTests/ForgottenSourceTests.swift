import CatalogStore
import ContentTree
import Foundation
import GRDB
import Testing

@Suite("sources no longer configured")
struct ForgottenSourceTests {
    @Test("sources left out of the configuration leave the catalog file in one transaction, with one diff")
    func removedTogether() async throws {
        let temp = try TemporaryCatalog("forgotten")
        defer { temp.remove() }
        let radio = CatalogSource(kind: .radio, location: "https://example.net/old.m3u")
        let podcast = CatalogSource(kind: .podcast, location: "https://example.net/old.xml")
        let kept = CatalogSource(kind: .json, location: "https://example.net/kept.json")
        var stationID = ""
        do {
            let database = try temp.open()
            for source in [radio, podcast, kept] {
                try await database.register(source)
                try await database.replaceContent(of: source.identifier, with: albumSnapshot(source, [
                    ("\(source.kind.rawValue) list", ["first \(source.kind.rawValue)", "second \(source.kind.rawValue)"]),
                ]))
            }
            stationID = "\(radio.identifier)/radio list/first radio"
            try await database.savePlaybackPosition(PlaybackPosition(elapsed: 12, duration: nil, updatedAt: 1), for: stationID)
            try database.close()
        }

        // As at a start with only the JSON catalog configured.
        let database = try temp.open()
        let before = try await allChildren(database, of: ContentItem.rootIdentifier).map(\.identifier)
        #expect(before == [
            ContentItem.Section.podcasts, ContentItem.Section.radio, "\(kept.identifier)/json list",
            ContentItem.Section.recent, ContentItem.Section.favorites,
        ])
        let changes = database.changes()
        let removed = try await database.removeSources(notIn: [kept.identifier])
        #expect(removed.map(\.source.identifier) == [podcast.identifier, radio.identifier].sorted())
        for (source, diff) in removed {
            #expect(diff.removedItems == 4, "\(source.kind): a container, two items and the section")
            #expect(diff.removedContainers.contains("\(source.identifier)/\(source.kind.rawValue) list"))
        }

        // One diff for the tree: both sections and both lists gone, the root changed.
        var updates = changes.makeAsyncIterator()
        let diff = try #require(await updates.next())
        #expect(diff.removedContainers == [
            ContentItem.Section.podcasts, ContentItem.Section.radio,
            "\(podcast.identifier)/podcast list", "\(radio.identifier)/radio list",
        ])
        #expect(diff.changedContainers == [ContentItem.rootIdentifier] && diff.removedItems == 8)

        // What the file holds now, read back after a reopen.
        try database.close()
        let reopened = try temp.open()
        #expect(try await reopened.sources().map(\.identifier) == [kept.identifier])
        #expect(try await allChildren(reopened, of: ContentItem.rootIdentifier).map(\.title)
                == ["json list", "Recently Played", "Favorites"])
        #expect(try await reopened.item(identifier: stationID) == nil)
        #expect(try await reopened.search("radio", limit: 10).total == 0)
        #expect(try await reopened.search("json", limit: 10).total == 3)
        let leftovers = try await reopened.pool.read { db in
            try Int.fetchOne(db, sql: """
                SELECT (SELECT count(*) FROM item WHERE sourceIdentifier IN (?, ?))
                    + (SELECT count(*) FROM child WHERE sourceIdentifier IN (?, ?))
                """, arguments: [radio.identifier, podcast.identifier, radio.identifier, podcast.identifier])
        }
        #expect(leftovers == 0)
        // The saved position stays, keyed by identifier, in case the source comes back.
        #expect(try await reopened.playbackPosition(for: stationID)?.elapsed == 12)
        // Nothing else to forget: nothing changes.
        #expect(try await reopened.removeSources(notIn: [kept.identifier]).isEmpty)
    }
}
