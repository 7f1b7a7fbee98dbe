import GRDB

extension CatalogSchema {
    /// Version 3, for embedded artwork:
    /// - child rows are indexed by the item they list, so attaching artwork finds an item's parents without
    ///   scanning every child row;
    /// - audio files scanned before embedded pictures were read are read once more at the next scan (their
    ///   remembered modification time no longer matches), so a library that was already scanned gets them.
    static func registerVersion3(in migrator: inout DatabaseMigrator) {
        migrator.registerMigration("v3: child rows by item identifier, audio files read again for embedded art") { db in
            try db.execute(sql: """
                CREATE INDEX child_by_identifier ON child(identifier);
                UPDATE local_file SET modified = -1 WHERE artworkKey IS NULL;
                """)
        }
    }
}
