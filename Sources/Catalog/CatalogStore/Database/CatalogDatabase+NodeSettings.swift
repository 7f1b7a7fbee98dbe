import GRDB

// MARK: - The node's own settings, kept with the catalog (the listener's volume)

extension CatalogSchema {
    static func registerNodeSettings(in migrator: inout DatabaseMigrator) {
        migrator.registerMigration("node settings") { db in
            try db.execute(sql: "CREATE TABLE node_setting (key TEXT PRIMARY KEY NOT NULL, value) WITHOUT ROWID")
        }
    }
}

extension CatalogDatabase {
    /// The listener's volume from an earlier run; nil on a fresh file.
    public func savedVolume() async throws -> Double? {
        try await pool.read { db in
            try Double.fetchOne(db, sql: "SELECT value FROM node_setting WHERE key = 'volume'")
        }
    }

    public func saveVolume(_ level: Double) async throws {
        try await pool.write { db in
            try db.execute(sql: "INSERT OR REPLACE INTO node_setting (key, value) VALUES ('volume', ?)", arguments: [level])
        }
    }
}
