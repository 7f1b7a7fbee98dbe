import ContentTree
import Foundation
import GRDB

// MARK: - Downloads: one row per item with a local copy, queued, running, failed or deleted by the listener

extension CatalogSchema {
    /// Named, not numbered: migrations added side by side must not claim the same number.
    static func registerDownloads(in migrator: inout DatabaseMigrator) {
        migrator.registerMigration("downloads") { db in
            // Not tied to item rows: a copy outlives a refresh that drops its episode for a while.
            try db.execute(sql: """
                CREATE TABLE download (
                    identifier TEXT PRIMARY KEY NOT NULL,
                    url TEXT NOT NULL,
                    fileName TEXT NOT NULL,
                    status TEXT NOT NULL,
                    bytes INTEGER NOT NULL DEFAULT 0,
                    -- 0...1 while downloading, when the server said the size; what the tree shows.
                    progress REAL,
                    message TEXT,
                    isAutomatic INTEGER NOT NULL DEFAULT 0,
                    requestedAt REAL NOT NULL,
                    finishedAt REAL
                ) WITHOUT ROWID
                """)
        }
    }
}

extension CatalogDatabase: DownloadStore {
    public func downloadRecords() async throws -> [DownloadRecord] {
        try await read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM download").compactMap { row -> DownloadRecord? in
                guard let status = DownloadStatus(rawValue: row["status"]) else { return nil }
                return DownloadRecord(
                    identifier: row["identifier"], url: row["url"], fileName: row["fileName"], status: status,
                    bytes: row["bytes"], message: row["message"], isAutomatic: row["isAutomatic"],
                    requestedAt: Date(timeIntervalSince1970: row["requestedAt"]),
                    finishedAt: (row["finishedAt"] as Double?).map(Date.init(timeIntervalSince1970:)))
            }
        }
    }

    public func saveDownload(_ record: DownloadRecord) async throws {
        try await pool.write { db in
            try db.execute(
                sql: """
                    INSERT OR REPLACE INTO download
                        (identifier, url, fileName, status, bytes, message, isAutomatic, requestedAt, finishedAt)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    record.identifier, record.url, record.fileName, record.status.rawValue, record.bytes, record.message,
                    record.isAutomatic, record.requestedAt.timeIntervalSince1970, record.finishedAt?.timeIntervalSince1970,
                ])
        }
    }

    public func saveDownloadProgress(_ identifier: String, progress: Double?) async throws {
        try await pool.write { db in
            try db.execute(sql: "UPDATE download SET progress = ? WHERE identifier = ?", arguments: [progress, identifier])
        }
    }

    public func containers(listing identifier: String) async throws -> Set<String> {
        try await read { db in
            Set(try String.fetchAll(db, sql: "SELECT DISTINCT parent FROM child WHERE identifier = ?", arguments: [identifier]))
        }
    }

    public func newestEpisodes(perFeed count: Int) async throws -> [(identifier: String, url: String)] {
        guard count > 0 else { return [] }
        return try await read { db in
            // A feed lists its episodes newest first; a release date, when the feed gives one, wins.
            let feeds = try String.fetchAll(db, sql: "SELECT identifier FROM child WHERE parent = ? ORDER BY position",
                                            arguments: [ContentItem.Section.podcasts])
            var episodes: [(identifier: String, url: String)] = []
            for feed in feeds {
                let rows = try Row.fetchAll(db, sql: """
                    SELECT item.identifier, item.uri FROM child JOIN item ON item.identifier = child.identifier
                    WHERE child.parent = ? AND item.isPlayable = 1 AND item.isContainer = 0
                        AND (item.uri LIKE 'http://%' OR item.uri LIKE 'https://%')
                        AND NOT (item.isStreamingContent = 1 AND item.duration IS NULL)
                    ORDER BY item.releaseDate IS NULL, item.releaseDate DESC, child.position
                    LIMIT ?
                    """, arguments: [feed, count])
                episodes += rows.map { (identifier: $0[0], url: $0[1]) }
            }
            return episodes
        }
    }

    public func playedToEnd(among identifiers: [String]) async throws -> [String: String?] {
        guard !identifiers.isEmpty else { return [:] }
        return try await read { db in
            // Within 5 s of the end counts as the end, as a replay that starts over does.
            let rows = try Row.fetchAll(db, sql: """
                SELECT position.identifier, item.releaseDate FROM playback_position AS position
                LEFT JOIN item ON item.identifier = position.identifier
                WHERE position.identifier IN (\(Self.placeholders(identifiers.count)))
                    AND COALESCE(position.duration, item.duration) IS NOT NULL
                    AND position.elapsed >= COALESCE(position.duration, item.duration) - 5
                """, arguments: StatementArguments(identifiers))
            return Dictionary(rows.map { ($0[0] as String, $0[1] as String?) }, uniquingKeysWith: { first, _ in first })
        }
    }

    public func listDownloads(_ identifiers: [String]) async throws {
        let section = ContentItem.Section.downloads
        let diff = try await pool.write { db -> CatalogDiff in
            var diff = CatalogDiff(changedContainers: [section])
            if try Bool.fetchOne(db, sql: "SELECT 1 FROM item WHERE identifier = ?", arguments: [section]) == nil {
                let item = ContentItem.container(section, title: "Downloads")
                try db.execute(
                    sql: "INSERT INTO item (\(CatalogSchema.itemColumns)) VALUES (\(Self.placeholders(25)))",
                    arguments: item.rowArguments(source: nil, digest: item.storedDigest))
                let rowid = db.lastInsertedRowID
                try db.execute(
                    sql: Self.insertChildSQL,
                    arguments: [ContentItem.rootIdentifier, Self.pendingPosition, section, nil as String?, rowid])
                // Not one of the source sections: it sorts after them.
                try Self.renumberMount(ContentItem.rootIdentifier, in: db)
                diff = CatalogDiff(addedContainers: [section], changedContainers: [ContentItem.rootIdentifier], addedItems: 1)
            }
            // Only items the catalog still holds (a feed may have dropped an episode), by their current rows.
            var listed: [(String, Int64)] = []
            for identifier in identifiers {
                if let rowid = try Int64.fetchOne(db, sql: "SELECT rowid FROM item WHERE identifier = ?", arguments: [identifier]) {
                    listed.append((identifier, rowid))
                }
            }
            let current = try Row.fetchAll(
                db, sql: "SELECT identifier, itemRowid FROM child WHERE parent = ? ORDER BY position", arguments: [section])
                .map { ($0[0] as String, $0[1] as Int64?) }
            if diff.addedContainers.isEmpty, current.map(\.0) == listed.map(\.0), current.map(\.1) == listed.map(\.1) {
                return CatalogDiff()
            }
            try db.execute(sql: "DELETE FROM child WHERE parent = ?", arguments: [section])
            let insert = try ChildInsert(db)
            for (position, entry) in listed.enumerated() {
                try insert.run(parent: section, position: position, child: entry.0, source: nil, rowid: entry.1)
            }
            try db.execute(sql: "UPDATE item SET childCount = ? WHERE identifier = ?", arguments: [listed.count, section])
            return diff
        }
        if !diff.isEmpty { broadcaster.publish(diff) }
    }

    public func deleteDownload(_ identifier: String) async throws {
        try await pool.write { db in
            try db.execute(sql: "DELETE FROM download WHERE identifier = ?", arguments: [identifier])
        }
    }
}
