import GRDB

extension CatalogSchema {
    /// Version 7, for the `search` command:
    /// - the index holds only what search answers with (playable items, albums, artists, shows), so its
    ///   count is the number of matches;
    /// - each entry keeps its title folded (`titleKey`), so a title equal to the query ranks first;
    /// - it keeps its own copy of the names (no longer external content): an entry is removed by rowid,
    ///   whatever its row holds by then;
    /// - two- and three-letter prefixes are indexed, so the first letters typed answer at once.
    /// The index is built here for a file that already has items, in the migration's transaction.
    static func registerRankedSearch(in migrator: inout DatabaseMigrator) {
        migrator.registerMigration("v7: ranked search over playable items and named containers") { db in
            try db.execute(sql: """
                DROP TABLE item_search;
                CREATE VIRTUAL TABLE item_search USING fts5(
                    title, artist, albumTitle, titleKey UNINDEXED,
                    tokenize='unicode61 remove_diacritics 2', prefix='2 3');
                """)
            try SearchIndex.addAll(in: db)
        }
    }
}
