import ContentTree
import GRDB

extension CatalogSchema {
    /// Recently Played and Favorites (contract 1.2): what played, when each mark was made, and the two
    /// sections, which every catalog file has from this migration on, empty or not.
    static func registerListeningHistory(in migrator: inout DatabaseMigrator) {
        migrator.registerMigration("listening history") { db in
            try db.execute(sql: """
                -- Keyed by identifier like the annotations, not tied to item rows: an item a refresh drops for a
                -- while comes back into the list when its source brings it back.
                CREATE TABLE recent_play (
                    identifier TEXT PRIMARY KEY NOT NULL,
                    playedAt REAL NOT NULL
                ) WITHOUT ROWID;
                -- When each mark was made: updatedAt moves with every change of the row (a rating, a dislike),
                -- and Favorites lists the newest mark first. Marks made before this column existed take the
                -- row's last change, the best time the file knows.
                ALTER TABLE feedback ADD COLUMN likedAt REAL;
                ALTER TABLE feedback ADD COLUMN bookmarkedAt REAL;
                UPDATE feedback SET likedAt = CASE WHEN liked THEN updatedAt END,
                    bookmarkedAt = CASE WHEN bookmarked THEN updatedAt END;
                """)
            for (index, (identifier, title)) in CatalogDatabase.listeningSections.enumerated() {
                var section = ContentItem.container(identifier, title: title)
                // Recently Played shows how far each item got (a podcast half heard shows 0.5).
                section.displaysPlaybackProgress = identifier == ContentItem.Section.recent
                try db.execute(
                    sql: "INSERT INTO item (\(itemColumns)) VALUES (\(CatalogDatabase.placeholders(25)))",
                    arguments: section.rowArguments(source: nil, digest: section.storedDigest))
                try db.execute(
                    sql: CatalogDatabase.insertChildSQL,
                    arguments: [
                        ContentItem.rootIdentifier, CatalogDatabase.pendingPosition + index, identifier, nil as String?,
                        db.lastInsertedRowID,
                    ])
            }
            try CatalogDatabase.renumberMount(ContentItem.rootIdentifier, in: db)
            // A file with marks from before lists them at once.
            _ = try CatalogDatabase.relist(ContentItem.Section.favorites, in: db)
        }
    }
}
