import CatalogStore
import ContentTree
import Foundation
import GRDB
import Testing

@Suite("catalog store")
struct StoreTests {
    @Test("a new database is migrated, and its root holds only Recently Played and Favorites")
    func migratesEmpty() async throws {
        let temp = try TemporaryCatalog()
        defer { temp.remove() }
        let database = try temp.open()
        let tables = try await database.pool.read { db in
            try String.fetchSet(db, sql: "SELECT name FROM sqlite_master WHERE type IN ('table', 'view')")
        }
        for table in ["source", "item", "child", "item_search", "artwork", "playback_position", "feedback", "local_file", "play_state", "play_queue", "loudness", "chapters"] {
            #expect(tables.contains(table), "missing table \(table)")
        }
        let applied = try await database.pool.read { db in try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations") }
        #expect(applied.count == 13 && applied.suffix(4) == ["play state", "listening history", "loudness: tags and measurements", "chapters of files and feeds"], "\(applied)")
        // An item's parents are found through an index, not a scan of every child row.
        let details = try await database.pool.read { db in
            try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN SELECT parent FROM child WHERE identifier = 'x'")
                .map { $0["detail"] as String }
        }
        #expect(details.contains { $0.contains("INDEX child_by_identifier") }, "\(details)")
        let mode = try await database.pool.read { db in try String.fetchOne(db, sql: "PRAGMA journal_mode") }
        #expect(mode == "wal")
        let listening = [ContentItem.Section.recent, ContentItem.Section.favorites]
        #expect(try await database.sections().items.map(\.identifier) == listening)
        #expect(try await database.sections().items.map(\.title) == ["Recently Played", "Favorites"])
        try database.close()
        // Reopening applies nothing again.
        let again = try temp.open()
        #expect(try await again.sections().items.map(\.identifier) == listening)
    }

    @Test("a version 1 catalog file upgrades in place: pages, search and scan state survive")
    func upgradesVersion1() async throws {
        let temp = try TemporaryCatalog("upgrade")
        defer { temp.remove() }
        // Version 1 as an earlier node left it: search kept by triggers, scan state as JSON text.
        let version1 = try DatabasePool(path: temp.path)
        try await version1.write { db in
            try db.execute(sql: Self.version1Schema)
            try db.execute(sql: """
                INSERT INTO grdb_migrations VALUES ('v1: sources, items, children, search, artwork, annotations');
                INSERT INTO source (identifier, kind, location, mount) VALUES ('local:old', 'local', '/music', 'section:library');
                INSERT INTO item (identifier, sourceIdentifier, title, isContainer, isPlayable, isStreamingContent,
                    isExplicitContent, displaysPlaybackProgress, digest, childCount)
                VALUES ('root', NULL, '', 1, 0, 0, 0, 0, '', 1),
                    ('section:library', NULL, 'Library', 1, 0, 0, 0, 0, '', 1),
                    ('album:old', 'local:old', 'Old Album', 1, 0, 0, 0, 0, 'd1', 2),
                    ('track:one', 'local:old', 'First Song', 0, 1, 0, 0, 0, 'd2', 0),
                    ('track:two', 'local:old', 'Second Song', 0, 1, 0, 0, 0, 'd3', 0);
                INSERT INTO child (parent, position, identifier, sourceIdentifier) VALUES
                    ('root', 0, 'section:library', NULL), ('section:library', 0, 'album:old', 'local:old'),
                    ('album:old', 0, 'track:one', 'local:old'), ('album:old', 1, 'track:two', 'local:old');
                INSERT INTO local_file (sourceIdentifier, path, size, modified, tags, artworkKey) VALUES
                    ('local:old', '/music/a.ogg', 100, 5.5,
                     '{"title":"First Song","artist":"Band","trackNumber":1,"duration":61}', NULL);
                """)
        }
        try version1.close()

        let database = try temp.open()
        let page = try await database.children(of: "album:old", offset: 0, limit: 10)
        #expect(page.childCount == 2 && page.items.map(\.title) == ["First Song", "Second Song"])
        #expect(try await database.search("second", limit: 5).items.map(\.identifier) == ["track:two"])
        let files = try await database.localFiles(of: "local:old")
        // Tags survive; the modification time does not, so the next scan reads the file once more for its
        // embedded picture, which version 1 never read.
        #expect(files["/music/a.ogg"] == LocalFileRecord(
            path: "/music/a.ogg", size: 100, modified: -1,
            tags: AudioTags(title: "First Song", artist: "Band", trackNumber: 1, duration: 61)))
        // The upgraded file keeps working as a version 2 one: a refresh replaces and reindexes.
        let source = try #require(try await database.sources().first)
        try await database.replaceContent(of: source.identifier, with: albumSnapshot(source, [("New", ["Third Song"])]))
        #expect(try await database.search("second", limit: 5).total == 0)
        #expect(try await database.search("third", limit: 5).total == 1)
    }

    @Test("sections appear under the root in a fixed order as sources register")
    func sections() async throws {
        let temp = try TemporaryCatalog()
        defer { temp.remove() }
        let database = try temp.open()
        try await database.register(CatalogSource(kind: .radio, location: "https://example.net/radio.m3u"))
        try await database.register(CatalogSource(kind: .local, location: "/music"))
        try await database.register(CatalogSource(kind: .podcast, location: "https://example.net/feed.xml"))
        let root = try await database.sections()
        // Recently Played and Favorites come after the sources' sections.
        #expect(root.items.map(\.identifier) == [
            ContentItem.Section.library, ContentItem.Section.podcasts, ContentItem.Section.radio,
            ContentItem.Section.recent, ContentItem.Section.favorites,
        ])
        #expect(root.items.map(\.title) == ["Library", "Podcasts", "Radio", "Recently Played", "Favorites"])
        #expect(try await database.item(at: [1])?.identifier == ContentItem.Section.podcasts)
        let radio = CatalogSource(kind: .radio, location: "https://example.net/radio.m3u")
        let diff = try await database.remove(sourceIdentifier: radio.identifier)
        #expect(diff.removedContainers.contains(ContentItem.Section.radio))
        #expect(try await database.sections().items.count == 4)
    }

    @Test("children page by position at any offset and depth")
    func paging() async throws {
        let temp = try TemporaryCatalog()
        defer { temp.remove() }
        let database = try temp.open()
        let source = CatalogSource(kind: .json, location: "test://paging")
        try await database.register(source)
        let tracks = (0..<237).map { "T\($0)" }
        try await database.replaceContent(of: source.identifier, with: albumSnapshot(source, [("A", tracks), ("B", ["x"])]))

        let album = try #require(try await database.item(at: [0]))
        #expect(album.title == "A" && album.isContainer)
        #expect(try await database.childCount(of: album.identifier) == 237)
        let page = try await database.children(of: album.identifier, offset: 200, limit: 50)
        #expect(page.offset == 200 && page.childCount == 237 && page.items.count == 37)
        #expect(page.items.first?.title == "T200" && page.nextOffset == nil)
        #expect(try await allChildren(database, of: album.identifier, pageSize: 17).map(\.title) == tracks)
        #expect(try await database.item(at: [0, 236])?.title == "T236")
        #expect(try await database.item(at: [0, 237]) == nil)
        #expect(try await database.item(at: [1, 0])?.title == "x")
        #expect(try await database.children(of: "nothing", offset: 0, limit: 10).items.isEmpty)
        // The page query is a seek in the (parent, position) key, not a scan.
        let detail = try await database.pool.read { db in
            try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN SELECT identifier FROM child WHERE parent = ? AND position >= ? ORDER BY position LIMIT 10",
                             arguments: [album.identifier, 200]).map { $0["detail"] as String }.joined(separator: " ")
        }
        #expect(detail.contains("SEARCH") && detail.contains("position>?"), "plan: \(detail)")
    }

    @Test("identifiers, progress and marks survive a re-import and a reopen")
    func stableAcrossReimport() async throws {
        let temp = try TemporaryCatalog()
        defer { temp.remove() }
        let source = CatalogSource(kind: .json, location: "test://stable")
        do {
            let database = try temp.open()
            try await database.register(source)
            try await database.replaceContent(of: source.identifier, with: albumSnapshot(source, [("A", ["one", "two"])]))
            let two = try #require(try await database.item(at: [0, 1]))
            try await database.savePlaybackPosition(PlaybackPosition(elapsed: 25, duration: nil, updatedAt: 1), for: two.identifier)
            try await database.setFeedback(.like, active: true, for: two.identifier)
            try await database.setFeedback(.bookmark, active: true, for: two.identifier)
            try await database.setRating(4, for: two.identifier)
            try database.close()
        }
        let database = try temp.open()
        try await database.replaceContent(of: source.identifier, with: albumSnapshot(source, [("A", ["zero", "one", "two"])]))
        let two = try #require(try await database.item(at: [0, 2]))
        #expect(two.identifier == "\(source.identifier)/A/two")
        #expect(two.playbackProgress == 0.25)
        #expect(try await database.playbackPosition(for: two.identifier)?.elapsed == 25)
        #expect(try await database.feedback(for: two.identifier) == ItemFeedback(liked: true, bookmarked: true, rating: 4))
        try await database.setFeedback(.dislike, active: true, for: two.identifier)
        #expect(try await database.feedback(for: two.identifier).liked == false)
        #expect(try await database.identifiers(marked: .bookmark) == [two.identifier])
        #expect(try await database.item(at: [0, 0])?.playbackProgress == -1)
    }

    @Test("a refresh reports exactly the containers it added, removed and changed")
    func diffOfRefresh() async throws {
        let temp = try TemporaryCatalog()
        defer { temp.remove() }
        let database = try temp.open()
        let source = CatalogSource(kind: .json, location: "test://diff")
        try await database.register(source)
        let first = try await database.replaceContent(
            of: source.identifier, with: albumSnapshot(source, [("A", ["1", "2"]), ("B", ["3"]), ("C", ["4"])]))
        #expect(first.addedContainers == ["\(source.identifier)/A", "\(source.identifier)/B", "\(source.identifier)/C"])
        #expect(first.changedContainers == [ContentItem.rootIdentifier])
        #expect(first.addedItems == 7)

        let updates = database.changes()
        var retitled = albumSnapshot(source, [("A", ["1", "2"]), ("B", ["3", "5"]), ("D", ["6"])])
        var renamed = try #require(retitled.items["\(source.identifier)/A/2"])
        renamed.title = "two"
        retitled.update(renamed)
        let diff = try await database.replaceContent(of: source.identifier, with: retitled)
        let id = { (name: String) in "\(source.identifier)/\(name)" }
        #expect(diff.addedContainers == [id("D")])
        #expect(diff.removedContainers == [id("C")])
        #expect(diff.changedContainers == [id("A"), id("B"), ContentItem.rootIdentifier])
        #expect(diff.addedItems == 3 && diff.removedItems == 2 && diff.updatedItems == 1)
        var iterator = updates.makeAsyncIterator()
        #expect(await iterator.next() == diff)

        let same = try await database.replaceContent(of: source.identifier, with: retitled)
        #expect(same.isEmpty)
        // A JSON catalog's nodes at the root come before the node's own sections.
        #expect(try await allChildren(database, of: ContentItem.rootIdentifier).map(\.title)
                == ["A", "B", "D", "Recently Played", "Favorites"])
        #expect(try await database.summary() == CatalogSummary(sources: 1, containers: 3, playables: 5))
    }

    @Test("items keep the change fingerprints earlier versions stored, so an upgrade rewrites nothing")
    func fingerprintsStable() async throws {
        let temp = try TemporaryCatalog()
        defer { temp.remove() }
        let database = try temp.open()
        let source = CatalogSource(kind: .json, location: "test://fingerprint")
        try await database.register(source)
        var snapshot = CatalogSnapshot()
        snapshot.add(.container("album:1", title: "Album"))
        snapshot.add(ContentItem(
            identifier: "track:7", title: "Track 7", artworkURL: "https://x/a.jpg", isPlayable: true,
            uri: "file:///m/7.ogg", artist: "Band", albumTitle: "Först", duration: 187.5, trackNumber: 7,
            trackCount: 12, discNumber: 1, genre: "Rock", releaseDate: "2021"), under: "album:1")
        snapshot.add(ContentItem(identifier: "neg", title: "Neg", isContainer: true, trackNumber: -3, trackCount: 0))
        try await database.replaceContent(of: source.identifier, with: snapshot)
        let digests = try await database.pool.read { db in
            try Dictionary(uniqueKeysWithValues: Row.fetchAll(
                db, sql: "SELECT identifier, digest FROM item WHERE identifier IN ('track:7', 'neg')"
            ).map { ($0[0] as String, $0[1] as String) })
        }
        // FNV-1a of the fields as text, computed independently of this code.
        #expect(digests == ["track:7": "fe4bffeb9b4bd0bc", "neg": "d2d698a4b9162b8c"])
    }

    @Test("search finds titles, artists and albums by word prefix")
    func search() async throws {
        let temp = try TemporaryCatalog()
        defer { temp.remove() }
        let database = try temp.open()
        let source = CatalogSource(kind: .json, location: "test://search")
        try await database.register(source)
        var snapshot = CatalogSnapshot()
        snapshot.add(.container("s/album", title: "Blue Train"))
        snapshot.add(ContentItem(identifier: "s/1", title: "Moment's Notice", isPlayable: true, artist: "John Coltrane", albumTitle: "Blue Train"), under: "s/album")
        snapshot.add(ContentItem(identifier: "s/2", title: "Lazy Bird", isPlayable: true, artist: "John Coltrane", albumTitle: "Blue Train"), under: "s/album")
        snapshot.add(ContentItem(identifier: "s/3", title: "Café Müller", isPlayable: true, artist: "Pina"), under: "s/album")
        try await database.replaceContent(of: source.identifier, with: snapshot)
        #expect(try await database.search("coltr", limit: 10).items.map(\.identifier).sorted() == ["s/1", "s/2"])
        #expect(try await database.search("lazy bird", limit: 10).items.map(\.identifier) == ["s/2"])
        #expect(try await database.search("blue", limit: 10).items.first?.identifier == "s/album")
        #expect(try await database.search("cafe muller", limit: 10).items.map(\.identifier) == ["s/3"])
        #expect(try await database.search("\"OR (", limit: 10).total == 0)
        // Removed items leave the index.
        try await database.replaceContent(of: source.identifier, with: CatalogSnapshot())
        #expect(try await database.search("coltrane", limit: 10).total == 0)
    }

    @Test("a snapshot that lists children under a playable is refused and changes nothing")
    func invalidSnapshot() async throws {
        let temp = try TemporaryCatalog()
        defer { temp.remove() }
        let database = try temp.open()
        let source = CatalogSource(kind: .json, location: "test://invalid")
        try await database.register(source)
        try await database.replaceContent(of: source.identifier, with: albumSnapshot(source, [("A", ["1"])]))
        var bad = CatalogSnapshot()
        bad.add(ContentItem(identifier: "p", title: "playable", isPlayable: true))
        bad.add(ContentItem(identifier: "q", title: "child", isPlayable: true), under: "p")
        await #expect(throws: CatalogDatabaseError.self) {
            try await database.replaceContent(of: source.identifier, with: bad)
        }
        #expect(try await database.item(at: [0, 0])?.title == "1")
    }

    /// The tables of catalog version 1, as its migration created them (kept here to test the upgrade).
    static let version1Schema = """
        CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY);
        CREATE TABLE source (
            identifier TEXT PRIMARY KEY NOT NULL, kind TEXT NOT NULL, location TEXT NOT NULL, title TEXT,
            mount TEXT NOT NULL, rank INTEGER NOT NULL DEFAULT 0, etag TEXT, lastModified TEXT, contentHash TEXT,
            lastAttemptAt REAL, lastSuccessAt REAL, lastError TEXT, lastErrorAt REAL,
            consecutiveFailures INTEGER NOT NULL DEFAULT 0);
        CREATE TABLE item (
            rowid INTEGER PRIMARY KEY, identifier TEXT NOT NULL UNIQUE,
            sourceIdentifier TEXT REFERENCES source(identifier) ON DELETE CASCADE, title TEXT NOT NULL, subtitle TEXT,
            artworkKey TEXT, artworkURL TEXT, isContainer INTEGER NOT NULL, isPlayable INTEGER NOT NULL,
            isStreamingContent INTEGER NOT NULL, isExplicitContent INTEGER NOT NULL,
            displaysPlaybackProgress INTEGER NOT NULL, uri TEXT, artist TEXT, albumTitle TEXT, duration REAL,
            trackNumber INTEGER, trackCount INTEGER, discNumber INTEGER, discCount INTEGER, genre TEXT,
            releaseDate TEXT, composer TEXT, summary TEXT, containerIdentifier TEXT, digest TEXT NOT NULL,
            childCount INTEGER NOT NULL DEFAULT 0);
        CREATE INDEX item_by_source ON item(sourceIdentifier);
        CREATE INDEX item_by_artwork ON item(artworkKey) WHERE artworkKey IS NOT NULL;
        CREATE TABLE child (
            parent TEXT NOT NULL, position INTEGER NOT NULL, identifier TEXT NOT NULL,
            sourceIdentifier TEXT REFERENCES source(identifier) ON DELETE CASCADE,
            PRIMARY KEY (parent, position)) WITHOUT ROWID;
        CREATE INDEX child_by_source ON child(sourceIdentifier, parent);
        CREATE VIRTUAL TABLE item_search USING fts5(
            title, artist, albumTitle, content='item', content_rowid='rowid',
            tokenize='unicode61 remove_diacritics 2');
        CREATE TRIGGER item_search_insert AFTER INSERT ON item BEGIN
            INSERT INTO item_search(rowid, title, artist, albumTitle) VALUES (new.rowid, new.title, new.artist, new.albumTitle);
        END;
        CREATE TRIGGER item_search_delete AFTER DELETE ON item BEGIN
            INSERT INTO item_search(item_search, rowid, title, artist, albumTitle)
            VALUES ('delete', old.rowid, old.title, old.artist, old.albumTitle);
        END;
        CREATE TRIGGER item_search_update AFTER UPDATE OF title, artist, albumTitle ON item BEGIN
            INSERT INTO item_search(item_search, rowid, title, artist, albumTitle)
            VALUES ('delete', old.rowid, old.title, old.artist, old.albumTitle);
            INSERT INTO item_search(rowid, title, artist, albumTitle) VALUES (new.rowid, new.title, new.artist, new.albumTitle);
        END;
        CREATE TABLE artwork (key TEXT PRIMARY KEY NOT NULL, mimeType TEXT NOT NULL, bytes BLOB NOT NULL, createdAt REAL NOT NULL);
        CREATE TABLE playback_position (
            identifier TEXT PRIMARY KEY NOT NULL, elapsed REAL NOT NULL, duration REAL, updatedAt REAL NOT NULL);
        CREATE TABLE feedback (
            identifier TEXT PRIMARY KEY NOT NULL, liked INTEGER NOT NULL DEFAULT 0, disliked INTEGER NOT NULL DEFAULT 0,
            bookmarked INTEGER NOT NULL DEFAULT 0, rating REAL, updatedAt REAL NOT NULL);
        CREATE TABLE local_file (
            sourceIdentifier TEXT NOT NULL REFERENCES source(identifier) ON DELETE CASCADE, path TEXT NOT NULL,
            size INTEGER NOT NULL, modified REAL NOT NULL, tags TEXT NOT NULL, artworkKey TEXT,
            PRIMARY KEY (sourceIdentifier, path)) WITHOUT ROWID;
        """
}
