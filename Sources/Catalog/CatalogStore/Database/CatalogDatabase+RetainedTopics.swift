import GRDB

// MARK: - Retained topics the node published, remembered across restarts

extension CatalogSchema {
    static func registerRetainedTopics(in migrator: inout DatabaseMigrator) {
        migrator.registerMigration("v4: retained topics") { db in
            try db.execute(sql: "CREATE TABLE retained_topic (topic TEXT PRIMARY KEY NOT NULL) WITHOUT ROWID")
        }
    }
}

extension CatalogDatabase {
    /// The retained topics recorded as published and not cleared since: what the broker may still hold
    /// from an earlier run, so the node can clear what it no longer publishes.
    public func rememberedRetainedTopics() async throws -> Set<String> {
        try await read { db in Set(try String.fetchAll(db, sql: "SELECT topic FROM retained_topic")) }
    }

    /// Records topics published (`added`) and cleared (`removed`) in one transaction.
    public func rememberRetainedTopics(added: Set<String>, removed: Set<String>) async throws {
        guard !added.isEmpty || !removed.isEmpty else { return }
        try await pool.write { db in
            for topic in removed.subtracting(added) {
                try db.execute(sql: "DELETE FROM retained_topic WHERE topic = ?", arguments: [topic])
            }
            for topic in added {
                try db.execute(sql: "INSERT OR IGNORE INTO retained_topic (topic) VALUES (?)", arguments: [topic])
            }
        }
    }
}
