import GRDB

extension CatalogSchema {
    /// Version 7, for the `search` command:
    /// - the index holds only what search answers with (playable items, albums, artists, shows), so its
    ///   count is the number of matches;
    /// - each entry's title is kept folded in `item_title_key`, indexed, so a title equal to the query ranks
    ///   first without reading every match's title;
    /// - it keeps its own copy of the names (no longer external content): an entry is removed by rowid,
    ///   whatever its row holds by then;
    /// - prefixes of two to six letters are indexed: a prefix query on a word most titles hold ("track",
    ///   "love") otherwise merges that word's whole posting list on every search, 10 ms on 100,000 items.
    /// The index is built here for a file that already has items, in the migration's transaction.
    static func registerRankedSearch(in migrator: inout DatabaseMigrator) {
        migrator.registerMigration("v7: ranked search over playable items and named containers") { db in
            try db.execute(sql: """
                DROP TABLE item_search;
                CREATE VIRTUAL TABLE item_search USING fts5(
                    title, artist, albumTitle, tokenize='unicode61 remove_diacritics 2', prefix='2 3 4 5 6');
                CREATE TABLE item_title_key (rowid INTEGER PRIMARY KEY, titleKey TEXT NOT NULL);
                CREATE INDEX item_title_key_by_key ON item_title_key(titleKey);
                """)
            try SearchIndex.addAll(in: db)
        }
    }
}
