import GRDB

extension CatalogSchema {
    /// Loudness, from tags and the node's own measurement, keyed by the playable's URI (the one the engine
    /// plays, which a browse page joins on), and the loudness tags of local files, which the scan keeps like
    /// their other tags. Every file is read again at the next scan, so a library scanned before gets its tags.
    ///
    /// `origin` says where a row came from: `tags`, `measured`, or `none` (measured and found silent or
    /// unreadable: not measured again while the file is unchanged). `size` and `modified` are the file's
    /// when it was measured, so a changed file is measured again.
    static func registerLoudness(in migrator: inout DatabaseMigrator) {
        migrator.registerMigration("loudness: tags and measurements") { db in
            try db.execute(sql: """
                ALTER TABLE local_file ADD COLUMN trackLoudness REAL;
                ALTER TABLE local_file ADD COLUMN albumLoudness REAL;
                ALTER TABLE local_file ADD COLUMN trackPeak REAL;
                ALTER TABLE local_file ADD COLUMN albumPeak REAL;
                UPDATE local_file SET modified = -1;
                CREATE TABLE loudness (
                    uri TEXT PRIMARY KEY NOT NULL,
                    track REAL,
                    album REAL,
                    trackPeak REAL,
                    albumPeak REAL,
                    origin TEXT NOT NULL,
                    size INTEGER,
                    modified REAL
                ) WITHOUT ROWID;
                """)
        }
    }
}
