import GRDB

extension CatalogSchema {
    /// Version 2, for speed at scale:
    /// - the search index is kept by the store with one statement per refresh instead of per-row triggers
    ///   (an FTS5 trigger flushes the index at the end of every statement: most of an import's time);
    /// - child rows carry their item's rowid, so a page joins on the integer key instead of a text index,
    ///   and are no longer indexed by source (a source's rows are found through its containers);
    /// - the local scan state is kept in columns instead of one JSON text per file.
    static func registerVersion2(in migrator: inout DatabaseMigrator) {
        migrator.registerMigration("v2: search kept by the store, item rowids in child rows, scan state in columns") { db in
            try db.execute(sql: """
                DROP TRIGGER item_search_insert;
                DROP TRIGGER item_search_delete;
                DROP TRIGGER item_search_update;

                -- A source's child rows are found through its containers: one index fewer to write per row.
                DROP INDEX child_by_source;
                ALTER TABLE child ADD COLUMN itemRowid INTEGER;
                UPDATE child SET itemRowid = (SELECT rowid FROM item WHERE item.identifier = child.identifier);

                CREATE TABLE local_file_v2 (
                    sourceIdentifier TEXT NOT NULL REFERENCES source(identifier) ON DELETE CASCADE,
                    path TEXT NOT NULL,
                    size INTEGER NOT NULL,
                    modified REAL NOT NULL,
                    title TEXT,
                    artist TEXT,
                    album TEXT,
                    genre TEXT,
                    year INTEGER,
                    trackNumber INTEGER,
                    discNumber INTEGER,
                    duration REAL,
                    artworkKey TEXT,
                    PRIMARY KEY (sourceIdentifier, path)
                ) WITHOUT ROWID;
                INSERT INTO local_file_v2
                    SELECT sourceIdentifier, path, size, modified, json_extract(tags, '$.title'),
                        json_extract(tags, '$.artist'), json_extract(tags, '$.album'), json_extract(tags, '$.genre'),
                        json_extract(tags, '$.year'), json_extract(tags, '$.trackNumber'), NULL,
                        json_extract(tags, '$.duration'), artworkKey
                    FROM local_file;
                DROP TABLE local_file;
                ALTER TABLE local_file_v2 RENAME TO local_file;
                """)
        }
    }
}
