import GRDB

extension CatalogSchema {
    /// Composer and the track and disc counts of local files, which the scan did not keep before: every
    /// file is read again at the next scan so now playing shows them without waiting for the file to change.
    static func registerReleaseTags(in migrator: inout DatabaseMigrator) {
        migrator.registerMigration("v5: composer, track and disc counts of local files") { db in
            try db.execute(sql: """
                ALTER TABLE local_file ADD COLUMN composer TEXT;
                ALTER TABLE local_file ADD COLUMN trackCount INTEGER;
                ALTER TABLE local_file ADD COLUMN discCount INTEGER;
                UPDATE local_file SET modified = -1;
                """)
        }
    }
}
