import GRDB

extension CatalogSchema {
    /// Chapters of playable items, from their files or their feeds, kept so they work offline:
    /// - `chapters` holds one row per item that has any: the list as JSON (`[{"title", "startTime"}]`, read
    ///   whole with the item, never with a page of the tree) and, for a feed's `podcast:chapters`, the URL it
    ///   was fetched from, so an unchanged URL is not fetched again. A row goes with its item.
    /// - local files keep their chapters with their other tags; every file is read again at the next scan,
    ///   and every podcast feed is parsed again at its next refresh (its stored hash and validators are
    ///   forgotten), so content scanned before gets its chapters.
    static func registerChapters(in migrator: inout DatabaseMigrator) {
        migrator.registerMigration("chapters of files and feeds") { db in
            try db.execute(sql: """
                CREATE TABLE chapters (
                    identifier TEXT PRIMARY KEY NOT NULL REFERENCES item(identifier) ON DELETE CASCADE,
                    list TEXT NOT NULL,
                    url TEXT
                ) WITHOUT ROWID;
                ALTER TABLE local_file ADD COLUMN chapters TEXT;
                UPDATE local_file SET modified = -1;
                UPDATE source SET contentHash = NULL, etag = NULL, lastModified = NULL WHERE kind = 'podcast';
                """)
        }
    }
}
