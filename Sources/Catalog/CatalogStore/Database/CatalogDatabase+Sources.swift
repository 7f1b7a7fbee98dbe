import ContentTree
import Foundation
import GRDB

// MARK: - Sources and their sync state

extension CatalogDatabase {
    /// Titles of the well-known sections, created the first time a source mounts under one.
    static let sectionTitles: [String: String] = [
        ContentItem.Section.library: "Library",
        ContentItem.Section.podcasts: "Podcasts",
        ContentItem.Section.radio: "Radio",
    ]
    static let sectionOrder = [ContentItem.Section.library, ContentItem.Section.podcasts, ContentItem.Section.radio]
    /// The node's own sections, after everything the sources put under the root (a JSON catalog mounts its
    /// nodes there): the version 1 sections stay where they were, and these follow in this order.
    static let trailingSections = [
        ContentItem.Section.recent, ContentItem.Section.favorites, ContentItem.Section.downloads,
    ]

    /// Adds a source (or updates its mount and rank), creating its section if needed; its content stays
    /// empty until the first successful refresh. Returns the change (a new section).
    @discardableResult
    public func register(_ source: CatalogSource) async throws -> CatalogDiff {
        let diff = try await pool.write { db in
            try db.execute(
                sql: """
                    INSERT INTO source (identifier, kind, location, mount, rank) VALUES (?, ?, ?, ?, ?)
                    ON CONFLICT(identifier) DO UPDATE SET mount = excluded.mount, rank = excluded.rank
                    """,
                arguments: [source.identifier, source.kind.rawValue, source.location, source.mount, source.rank])
            return try Self.ensureMount(source.mount, in: db)
        }
        broadcaster.publish(diff)
        return diff
    }

    /// Removes a source and all its content (annotations stay, keyed by identifier).
    @discardableResult
    public func remove(sourceIdentifier: String) async throws -> CatalogDiff {
        let diff = try await pool.write { db in
            guard let source = try Self.source(sourceIdentifier, in: db) else { return CatalogDiff() }
            return try Self.remove(source, in: db)
        }
        broadcaster.publish(diff)
        return diff
    }

    /// Removes every source not in `configured`, with its content, in one transaction: a source dropped from
    /// the node's configuration must leave the tree, not linger unrefreshed. Returns each removed source with
    /// what its removal changed; subscribers of `changes()` get one diff for them all.
    @discardableResult
    public func removeSources(notIn configured: Set<String>) async throws -> [(source: CatalogSource, diff: CatalogDiff)] {
        let removed = try await pool.write { db in
            var removed: [(source: CatalogSource, diff: CatalogDiff)] = []
            for identifier in try String.fetchAll(db, sql: "SELECT identifier FROM source ORDER BY rank, identifier")
            where !configured.contains(identifier) {
                guard let source = try Self.source(identifier, in: db) else { continue }
                removed.append((source, try Self.remove(source, in: db)))
            }
            return removed
        }
        guard var merged = removed.first?.diff else { return removed }
        for entry in removed.dropFirst() { merged.merge(entry.diff) }
        broadcaster.publish(merged)
        return removed
    }

    /// Every registered source.
    public func sources() async throws -> [CatalogSource] {
        try await read { db in
            try String.fetchAll(db, sql: "SELECT identifier FROM source ORDER BY rank, identifier")
                .compactMap { try Self.source($0, in: db) }
        }
    }

    public func syncState(for sourceIdentifier: String) async throws -> SourceSyncState {
        try await read { db in try Self.syncState(sourceIdentifier, in: db) }
    }

    /// Records a failed refresh; the source's content is left exactly as it was.
    public func recordFailure(_ message: String, for sourceIdentifier: String, at time: Double = Date().timeIntervalSince1970) async throws {
        try await pool.write { db in
            try db.execute(
                sql: """
                    UPDATE source SET lastAttemptAt = ?, lastError = ?, lastErrorAt = ?,
                        consecutiveFailures = consecutiveFailures + 1 WHERE identifier = ?
                    """,
                arguments: [time, message, time, sourceIdentifier])
        }
    }

    /// Records a refresh that found nothing new (HTTP 304, same body, unchanged folders).
    public func recordUnchanged(_ validators: FetchValidators, for sourceIdentifier: String, at time: Double = Date().timeIntervalSince1970) async throws {
        try await pool.write { db in
            try Self.recordSuccess(validators, for: sourceIdentifier, at: time, in: db)
        }
    }

    // MARK: - Inside a transaction

    static func source(_ identifier: String, in db: Database) throws -> CatalogSource? {
        guard let row = try Row.fetchOne(
            db, sql: "SELECT kind, location, mount, rank FROM source WHERE identifier = ?", arguments: [identifier])
        else { return nil }
        var source = CatalogSource(
            kind: CatalogSource.Kind(rawValue: row[0]) ?? .json, location: row[1], mount: row[2], rank: row[3])
        source.identifier = identifier
        return source
    }

    static func syncState(_ identifier: String, in db: Database) throws -> SourceSyncState {
        guard let row = try Row.fetchOne(
            db,
            sql: """
                SELECT etag, lastModified, contentHash, lastAttemptAt, lastSuccessAt, lastError, lastErrorAt,
                    consecutiveFailures FROM source WHERE identifier = ?
                """,
            arguments: [identifier])
        else { throw CatalogDatabaseError.unknownSource(identifier) }
        return SourceSyncState(
            etag: row[0], lastModified: row[1], contentHash: row[2], lastAttemptAt: row[3], lastSuccessAt: row[4],
            lastError: row[5], lastErrorAt: row[6], consecutiveFailures: row[7])
    }

    static func recordSuccess(_ validators: FetchValidators, for identifier: String, at time: Double, in db: Database) throws {
        try db.execute(
            sql: """
                UPDATE source SET etag = coalesce(?, etag), lastModified = coalesce(?, lastModified),
                    contentHash = coalesce(?, contentHash), title = coalesce(?, title), lastAttemptAt = ?,
                    lastSuccessAt = ?, lastError = NULL, lastErrorAt = NULL, consecutiveFailures = 0
                WHERE identifier = ?
                """,
            arguments: [
                validators.etag, validators.lastModified, validators.contentHash, validators.title, time, time,
                identifier,
            ])
    }

    /// Empties a source, forgets it, and drops its section if no other source mounts there.
    static func remove(_ source: CatalogSource, in db: Database) throws -> CatalogDiff {
        var diff = try replace(source: source, with: CatalogSnapshot(), validators: FetchValidators(), in: db)
        try db.execute(sql: "DELETE FROM source WHERE identifier = ?", arguments: [source.identifier])
        diff.merge(try dropMountIfUnused(source.mount, in: db))
        return diff
    }

    /// Creates a well-known section under the root when a source first mounts there.
    static func ensureMount(_ mount: String, in db: Database) throws -> CatalogDiff {
        guard let title = sectionTitles[mount],
            try Bool.fetchOne(db, sql: "SELECT 1 FROM item WHERE identifier = ?", arguments: [mount]) == nil
        else { return CatalogDiff() }
        let section = ContentItem.container(mount, title: title)
        try db.execute(
            sql: "INSERT INTO item (\(CatalogSchema.itemColumns)) VALUES (\(placeholders(25)))",
            arguments: section.rowArguments(source: nil, digest: section.storedDigest))
        let rowid = db.lastInsertedRowID
        try SearchIndex.add([rowid], in: db)
        try db.execute(
            sql: insertChildSQL, arguments: [ContentItem.rootIdentifier, pendingPosition, mount, nil as String?, rowid])
        try renumberMount(ContentItem.rootIdentifier, in: db)
        return CatalogDiff(addedContainers: [mount], changedContainers: [ContentItem.rootIdentifier], addedItems: 1)
    }

    /// Deletes a section no source mounts under any more.
    static func dropMountIfUnused(_ mount: String, in db: Database) throws -> CatalogDiff {
        guard sectionTitles[mount] != nil,
            try Bool.fetchOne(db, sql: "SELECT 1 FROM source WHERE mount = ?", arguments: [mount]) == nil
        else { return CatalogDiff() }
        if let rowid = try Int64.fetchOne(db, sql: "SELECT rowid FROM item WHERE identifier = ?", arguments: [mount]) {
            try SearchIndex.remove([rowid], in: db)
        }
        try db.execute(sql: "DELETE FROM item WHERE identifier = ?", arguments: [mount])
        try db.execute(sql: "DELETE FROM child WHERE parent = ?", arguments: [mount])
        try db.execute(
            sql: "DELETE FROM child WHERE parent = ? AND identifier = ?", arguments: [ContentItem.rootIdentifier, mount])
        try renumberMount(ContentItem.rootIdentifier, in: db)
        return CatalogDiff(removedContainers: [mount], changedContainers: [ContentItem.rootIdentifier], removedItems: 1)
    }

    static func placeholders(_ count: Int) -> String { Array(repeating: "?", count: count).joined(separator: ", ") }
}
