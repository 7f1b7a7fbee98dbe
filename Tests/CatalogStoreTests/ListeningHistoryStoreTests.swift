import ContentTree
import Foundation
import GRDB
import Testing
@testable import CatalogStore

/// Recently Played and Favorites as the catalog file keeps them: two sections every file has, listed from
/// what played and from the marks, that follow the catalog when items leave and come back.
@Suite("Recently Played and Favorites in the catalog file")
struct ListeningHistoryStoreTests {
    static let recent = ContentItem.Section.recent
    static let favorites = ContentItem.Section.favorites

    /// A catalog with one album of `count` tracks; returns the tracks' identifiers.
    static func catalog(_ database: CatalogDatabase, tracks count: Int) async throws -> (CatalogSource, [String]) {
        let source = CatalogSource(kind: .local, location: "/music")
        try await database.register(source)
        let titles = (1...count).map { "Track \($0)" }
        try await database.replaceContent(of: source.identifier, with: albumSnapshot(source, [("Album", titles)]))
        return (source, titles.map { "\(source.identifier)/Album/\($0)" })
    }

    @Test("a file from before the listening history opens and migrates: both sections after the sources' sections and before Downloads, earlier marks listed")
    func upgradesAnEarlierFile() async throws {
        let temp = try TemporaryCatalog("history-upgrade")
        defer { temp.remove() }
        // The file exactly as the previous version left it: every migration up to downloads, and rows.
        var configuration = Configuration()
        configuration.prepareDatabase { db in db.add(function: SearchKey.function) }
        let earlier = try DatabasePool(path: temp.path, configuration: configuration)
        try CatalogSchema.migrator.migrate(earlier, upTo: "downloads")
        try await earlier.write { db in
            try db.execute(sql: """
                INSERT INTO source (identifier, kind, location, mount) VALUES ('local:old', 'local', '/music', 'section:library');
                INSERT INTO item (identifier, sourceIdentifier, title, isContainer, isPlayable, isStreamingContent,
                    isExplicitContent, displaysPlaybackProgress, digest, childCount)
                VALUES ('section:library', NULL, 'Library', 1, 0, 0, 0, 0, '', 1),
                    ('section:downloads', NULL, 'Downloads', 1, 0, 0, 0, 0, '', 0),
                    ('album:old', 'local:old', 'Old Album', 1, 0, 0, 0, 0, 'd1', 3),
                    ('track:one', 'local:old', 'One', 0, 1, 0, 0, 0, 'd2', 0),
                    ('track:two', 'local:old', 'Two', 0, 1, 0, 0, 0, 'd3', 0),
                    ('track:three', 'local:old', 'Three', 0, 1, 0, 0, 0, 'd4', 0);
                INSERT INTO child (parent, position, identifier, sourceIdentifier, itemRowid) VALUES
                    ('root', 0, 'section:library', NULL, (SELECT rowid FROM item WHERE identifier = 'section:library')),
                    ('root', 1, 'section:downloads', NULL, (SELECT rowid FROM item WHERE identifier = 'section:downloads')),
                    ('section:library', 0, 'album:old', 'local:old', (SELECT rowid FROM item WHERE identifier = 'album:old'));
                UPDATE item SET childCount = 2 WHERE identifier = 'root';
                INSERT INTO feedback (identifier, liked, disliked, bookmarked, rating, updatedAt) VALUES
                    ('track:one', 1, 0, 0, NULL, 100), ('track:two', 0, 0, 1, NULL, 200), ('track:three', 0, 1, 0, 4, 300);
                """)
        }
        try earlier.close()

        let database = try temp.open()
        #expect(try await database.sections().items.map(\.identifier) == [
            ContentItem.Section.library, Self.recent, Self.favorites, ContentItem.Section.downloads,
        ])
        // The bookmark of 200 is newer than the like of 100; a dislike is no favorite.
        #expect(try await allChildren(database, of: Self.favorites).map(\.identifier) == ["track:two", "track:one"])
        #expect(try await database.childCount(of: Self.recent) == 0)
        let recent = try #require(try await database.item(identifier: Self.recent))
        #expect(recent.title == "Recently Played" && recent.isContainer && recent.displaysPlaybackProgress)
        // It keeps working as a current file: a play and a new mark.
        try await database.recordPlay(of: "track:three", at: 400, position: nil)
        #expect(try await database.listed(in: Self.recent) == ["track:three"])
        try await database.setFeedback(.like, active: true, for: "track:three")
        try await database.listFavorites()
        #expect(try await database.listed(in: Self.favorites) == ["track:three", "track:two", "track:one"])
    }

    @Test("Recently Played lists the most recent first, each once, at most 25, with the position saved when it counted")
    func recentlyPlayed() async throws {
        let temp = try TemporaryCatalog("history-recent")
        defer { temp.remove() }
        let database = try temp.open()
        let (_, tracks) = try await Self.catalog(database, tracks: 30)
        let changes = database.changes()
        try await database.recordPlay(
            of: tracks[0], at: 1, position: PlaybackPosition(elapsed: 50, duration: 100, updatedAt: 1))
        var updates = changes.makeAsyncIterator()
        #expect(await updates.next() == CatalogDiff(changedContainers: [Self.recent]))
        let first = try await database.children(of: Self.recent, offset: 0, limit: 10)
        #expect(first.childCount == 1 && first.items.first?.playbackProgress == 0.5)

        for (index, track) in tracks.enumerated() { try await database.recordPlay(of: track, at: Double(10 + index), position: nil) }
        try await database.recordPlay(of: tracks[3], at: 100, position: nil)
        let listed = try await database.listed(in: Self.recent)
        #expect(listed.count == CatalogDatabase.recentlyPlayedLimit)
        #expect(listed.first == tracks[3] && listed.dropFirst().first == tracks[29] && Set(listed).count == listed.count)
        #expect(!listed.contains(tracks[0]), "the oldest plays fall off the end")

        // A newer position saved meanwhile (a pause) is not overwritten by the one the play was counted with.
        try await database.savePlaybackPosition(PlaybackPosition(elapsed: 80, duration: 100, updatedAt: 200), for: tracks[3])
        try await database.recordPlay(of: tracks[3], at: 150, position: PlaybackPosition(elapsed: 5, duration: 100, updatedAt: 150))
        #expect(try await database.playbackPosition(for: tracks[3])?.elapsed == 80)
    }

    @Test("Favorites lists liked and bookmarked items, newest mark first; an unmark or a dislike takes one out, a rating or a repeated like does not move it")
    func favorites() async throws {
        let temp = try TemporaryCatalog("history-favorites")
        defer { temp.remove() }
        let database = try temp.open()
        let (_, tracks) = try await Self.catalog(database, tracks: 4)
        func mark(_ mark: FeedbackMark, _ active: Bool, _ index: Int) async throws {
            try await database.setFeedback(mark, active: active, for: tracks[index])
            try await database.listFavorites()
            // Marks a moment apart, as a listener makes them.
            try await Task.sleep(for: .milliseconds(5))
        }
        try await mark(.like, true, 0)
        try await mark(.bookmark, true, 1)
        try await mark(.like, true, 2)
        #expect(try await database.listed(in: Self.favorites) == [tracks[2], tracks[1], tracks[0]])
        try await mark(.like, true, 0)
        try await database.setRating(3, for: tracks[1])
        try await database.listFavorites()
        #expect(try await database.listed(in: Self.favorites) == [tracks[2], tracks[1], tracks[0]])
        // Bookmarking a liked item is a newer mark.
        try await mark(.bookmark, true, 0)
        #expect(try await database.listed(in: Self.favorites) == [tracks[0], tracks[2], tracks[1]])
        try await mark(.bookmark, false, 1)
        try await mark(.dislike, true, 2)
        #expect(try await database.listed(in: Self.favorites) == [tracks[0]])
        // Unliking leaves it listed by its bookmark.
        try await mark(.like, false, 0)
        #expect(try await database.listed(in: Self.favorites) == [tracks[0]])
        try await mark(.bookmark, false, 0)
        #expect(try await database.childCount(of: Self.favorites) == 0)
    }

    @Test("with nothing played or marked the lists stay empty, and a row left in one is still taken out")
    func emptyHistory() async throws {
        let temp = try TemporaryCatalog("history-empty")
        defer { temp.remove() }
        let database = try temp.open()
        let (_, tracks) = try await Self.catalog(database, tracks: 2)
        try await database.listListeningHistory(itemsChanged: false)
        #expect(try await database.listed(in: Self.recent).isEmpty)
        #expect(try await database.listed(in: Self.favorites).isEmpty)

        // A row no play stands behind (as a history cleared outside the node would leave) goes at the next listing.
        try await database.pool.write { db in
            try db.execute(sql: """
                INSERT INTO child (parent, position, identifier, itemRowid)
                SELECT ?, 0, identifier, rowid FROM item WHERE identifier = ?
                """, arguments: [Self.recent, tracks[0]])
            try db.execute(sql: "UPDATE item SET childCount = 1 WHERE identifier = ?", arguments: [Self.recent])
        }
        #expect(try await database.listed(in: Self.recent) == [tracks[0]])
        try await database.listListeningHistory(itemsChanged: false)
        #expect(try await database.listed(in: Self.recent).isEmpty)
        #expect(try await database.childCount(of: Self.recent) == 0)
    }

    @Test("an item a refresh drops leaves both lists, and comes back into them with its source")
    func followsRefreshes() async throws {
        let temp = try TemporaryCatalog("history-refresh")
        defer { temp.remove() }
        let database = try temp.open()
        let (source, tracks) = try await Self.catalog(database, tracks: 3)
        for (index, track) in tracks.enumerated() {
            try await database.recordPlay(of: track, at: Double(index), position: nil)
            try await database.setFeedback(.like, active: true, for: track)
            try await database.listFavorites()
        }
        try await database.replaceContent(of: source.identifier, with: albumSnapshot(source, [("Album", ["Track 1", "Track 3"])]))
        try await database.listListeningHistory(itemsChanged: false)
        #expect(try await database.listed(in: Self.recent) == [tracks[2], tracks[0]])
        #expect(try await database.listed(in: Self.favorites).count == 2)
        #expect(try await database.children(of: Self.recent, offset: 0, limit: 10).items.map(\.identifier) == [tracks[2], tracks[0]])

        try await database.replaceContent(of: source.identifier, with: albumSnapshot(source, [("Album", ["Track 1", "Track 2", "Track 3"])]))
        try await database.listListeningHistory(itemsChanged: false)
        #expect(try await database.listed(in: Self.recent) == [tracks[2], tracks[1], tracks[0]])
        // Listed under the returned item's new row: the page shows it.
        #expect(try await database.children(of: Self.favorites, offset: 0, limit: 10).items.count == 3)
    }
}
