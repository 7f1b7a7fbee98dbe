import ContentTree
import GRDB

/// The catalog's tables, created and evolved by numbered migrations so an old file upgrades in place.
///
/// Containers and playables share the `item` table and are linked by `child` rows: a parent's children may
/// mix both kinds with one dense position sequence, and one item may appear in several containers.
enum CatalogSchema {
    static let itemColumns = """
        identifier, sourceIdentifier, title, subtitle, artworkKey, artworkURL, isContainer, isPlayable,
        isStreamingContent, isExplicitContent, displaysPlaybackProgress, uri, artist, albumTitle, duration,
        trackNumber, trackCount, discNumber, discCount, genre, releaseDate, composer, summary,
        containerIdentifier, digest
        """

    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1: sources, items, children, search, artwork, annotations") { db in
            try db.execute(sql: """
                CREATE TABLE source (
                    identifier TEXT PRIMARY KEY NOT NULL,
                    kind TEXT NOT NULL,
                    location TEXT NOT NULL,
                    title TEXT,
                    mount TEXT NOT NULL,
                    rank INTEGER NOT NULL DEFAULT 0,
                    etag TEXT,
                    lastModified TEXT,
                    contentHash TEXT,
                    lastAttemptAt REAL,
                    lastSuccessAt REAL,
                    lastError TEXT,
                    lastErrorAt REAL,
                    consecutiveFailures INTEGER NOT NULL DEFAULT 0
                );
                CREATE TABLE item (
                    rowid INTEGER PRIMARY KEY,
                    identifier TEXT NOT NULL UNIQUE,
                    sourceIdentifier TEXT REFERENCES source(identifier) ON DELETE CASCADE,
                    title TEXT NOT NULL,
                    subtitle TEXT,
                    artworkKey TEXT,
                    artworkURL TEXT,
                    isContainer INTEGER NOT NULL,
                    isPlayable INTEGER NOT NULL,
                    isStreamingContent INTEGER NOT NULL,
                    isExplicitContent INTEGER NOT NULL,
                    displaysPlaybackProgress INTEGER NOT NULL,
                    uri TEXT,
                    artist TEXT,
                    albumTitle TEXT,
                    duration REAL,
                    trackNumber INTEGER,
                    trackCount INTEGER,
                    discNumber INTEGER,
                    discCount INTEGER,
                    genre TEXT,
                    releaseDate TEXT,
                    composer TEXT,
                    summary TEXT,
                    containerIdentifier TEXT,
                    digest TEXT NOT NULL,
                    childCount INTEGER NOT NULL DEFAULT 0
                );
                CREATE INDEX item_by_source ON item(sourceIdentifier);
                CREATE INDEX item_by_artwork ON item(artworkKey) WHERE artworkKey IS NOT NULL;

                -- Keyset paging: a page is a seek to (parent, position) in this primary key.
                CREATE TABLE child (
                    parent TEXT NOT NULL,
                    position INTEGER NOT NULL,
                    identifier TEXT NOT NULL,
                    sourceIdentifier TEXT REFERENCES source(identifier) ON DELETE CASCADE,
                    PRIMARY KEY (parent, position)
                ) WITHOUT ROWID;
                CREATE INDEX child_by_source ON child(sourceIdentifier, parent);

                CREATE VIRTUAL TABLE item_search USING fts5(
                    title, artist, albumTitle, content='item', content_rowid='rowid',
                    tokenize='unicode61 remove_diacritics 2');
                CREATE TRIGGER item_search_insert AFTER INSERT ON item BEGIN
                    INSERT INTO item_search(rowid, title, artist, albumTitle)
                    VALUES (new.rowid, new.title, new.artist, new.albumTitle);
                END;
                CREATE TRIGGER item_search_delete AFTER DELETE ON item BEGIN
                    INSERT INTO item_search(item_search, rowid, title, artist, albumTitle)
                    VALUES ('delete', old.rowid, old.title, old.artist, old.albumTitle);
                END;
                CREATE TRIGGER item_search_update AFTER UPDATE OF title, artist, albumTitle ON item BEGIN
                    INSERT INTO item_search(item_search, rowid, title, artist, albumTitle)
                    VALUES ('delete', old.rowid, old.title, old.artist, old.albumTitle);
                    INSERT INTO item_search(rowid, title, artist, albumTitle)
                    VALUES (new.rowid, new.title, new.artist, new.albumTitle);
                END;

                CREATE TABLE artwork (
                    key TEXT PRIMARY KEY NOT NULL,
                    mimeType TEXT NOT NULL,
                    bytes BLOB NOT NULL,
                    createdAt REAL NOT NULL
                );

                -- Annotations are keyed by identifier only, not tied to item rows: they outlive refreshes
                -- that drop an item for a while (a feed that briefly loses an episode).
                CREATE TABLE playback_position (
                    identifier TEXT PRIMARY KEY NOT NULL,
                    elapsed REAL NOT NULL,
                    duration REAL,
                    updatedAt REAL NOT NULL
                );
                CREATE TABLE feedback (
                    identifier TEXT PRIMARY KEY NOT NULL,
                    liked INTEGER NOT NULL DEFAULT 0,
                    disliked INTEGER NOT NULL DEFAULT 0,
                    bookmarked INTEGER NOT NULL DEFAULT 0,
                    rating REAL,
                    updatedAt REAL NOT NULL
                );

                CREATE TABLE local_file (
                    sourceIdentifier TEXT NOT NULL REFERENCES source(identifier) ON DELETE CASCADE,
                    path TEXT NOT NULL,
                    size INTEGER NOT NULL,
                    modified REAL NOT NULL,
                    tags TEXT NOT NULL,
                    artworkKey TEXT,
                    PRIMARY KEY (sourceIdentifier, path)
                ) WITHOUT ROWID;
                """)
            try db.execute(
                sql: """
                    INSERT INTO item (identifier, title, isContainer, isPlayable, isStreamingContent,
                        isExplicitContent, displaysPlaybackProgress, digest)
                    VALUES (?, '', 1, 0, 0, 0, 0, '')
                    """,
                arguments: [ContentItem.rootIdentifier])
        }
        registerVersion2(in: &migrator)
        registerVersion3(in: &migrator)
        registerRetainedTopics(in: &migrator)
        registerReleaseTags(in: &migrator)
        registerArtworkSizes(in: &migrator)
        registerRankedSearch(in: &migrator)
        registerNodeSettings(in: &migrator)
        registerDownloads(in: &migrator)
        registerPlayState(in: &migrator)
        registerListeningHistory(in: &migrator)
        registerLoudness(in: &migrator)
        registerChapters(in: &migrator)
        return migrator
    }
}
