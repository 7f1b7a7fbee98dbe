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
        try await read { db in try NodeSettingRows.volume(db) }
    }

    public func saveVolume(_ level: Double) async throws {
        try await pool.write { db in try NodeSettingRows.setVolume(level, in: db) }
    }
}

/// The node's settings rows, the same in the catalog file and in the node state file.
enum NodeSettingRows {
    static func volume(_ db: Database) throws -> Double? {
        try Double.fetchOne(db, sql: "SELECT value FROM node_setting WHERE key = 'volume'")
    }

    static func setVolume(_ level: Double, in db: Database) throws {
        try db.cachedStatement(sql: "INSERT OR REPLACE INTO node_setting (key, value) VALUES ('volume', ?)")
            .execute(arguments: [level])
    }

    static func clearVolume(in db: Database) throws {
        try db.execute(sql: "DELETE FROM node_setting WHERE key = 'volume'")
    }
}
