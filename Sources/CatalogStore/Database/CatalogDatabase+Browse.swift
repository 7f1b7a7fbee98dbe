import ContentTree
import GRDB

// MARK: - Browse: the read side of ContentCatalog, answered from the file alone

extension CatalogDatabase: ContentCatalog {
    public func item(identifier: String) async throws -> ContentItem? {
        try await pool.read { db in try Self.item(identifier, in: db) }
    }

    public func childCount(of containerIdentifier: String) async throws -> Int {
        try await pool.read { db in try Self.childCount(containerIdentifier, in: db) }
    }

    public func children(of containerIdentifier: String, offset: Int, limit: Int) async throws -> ContentPage {
        try await pool.read { db in
            try Self.children(of: containerIdentifier, offset: offset, limit: limit, in: db)
        }
    }

    public func search(_ text: String, limit: Int) async throws -> [ContentItem] {
        guard let query = Self.ftsQuery(text) else { return [] }
        return try await pool.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT \(ContentItem.selection) FROM item_search
                    JOIN item ON item.rowid = item_search.rowid \(ContentItem.progressJoin)
                    WHERE item_search MATCH ? ORDER BY bm25(item_search, 4.0, 2.0, 1.0), item.rowid LIMIT ?
                    """,
                arguments: [query, max(0, limit)]
            ).map(ContentItem.init(itemRow:))
        }
    }

    public func summary() async throws -> CatalogSummary {
        try await pool.read { db in
            let sources = try Int.fetchOne(db, sql: "SELECT count(*) FROM source") ?? 0
            let containers = try Int.fetchOne(
                db, sql: "SELECT count(*) FROM item WHERE isContainer AND sourceIdentifier IS NOT NULL") ?? 0
            let playables = try Int.fetchOne(db, sql: "SELECT count(*) FROM item WHERE isPlayable") ?? 0
            return CatalogSummary(sources: sources, containers: containers, playables: playables)
        }
    }

    public func changes() -> AsyncStream<CatalogDiff> { broadcaster.stream() }

    // MARK: - Synchronous forms, for callers already inside a database access

    static func item(_ identifier: String, in db: Database) throws -> ContentItem? {
        try Row.fetchOne(
            db,
            sql: "SELECT \(ContentItem.selection) FROM item \(ContentItem.progressJoin) WHERE item.identifier = ?",
            arguments: [identifier]
        ).map(ContentItem.init(itemRow:))
    }

    static func childCount(_ identifier: String, in db: Database) throws -> Int {
        try Int.fetchOne(db, sql: "SELECT childCount FROM item WHERE identifier = ?", arguments: [identifier]) ?? 0
    }

    /// Positions are dense (0..<childCount) per parent, so `offset` is a seek in the (parent, position) key.
    static func children(of parent: String, offset: Int, limit: Int, in db: Database) throws -> ContentPage {
        let start = max(0, offset)
        let items = try Row.fetchAll(
            db,
            sql: """
                SELECT \(ContentItem.selection) FROM child
                JOIN item ON item.identifier = child.identifier \(ContentItem.progressJoin)
                WHERE child.parent = ? AND child.position >= ? ORDER BY child.position LIMIT ?
                """,
            arguments: [parent, start, max(0, limit)]
        ).map(ContentItem.init(itemRow:))
        return ContentPage(
            containerIdentifier: parent, childCount: try childCount(parent, in: db), offset: start, items: items)
    }

    /// Turns free text into an FTS5 query: every word must match as a prefix; quotes keep operators inert.
    static func ftsQuery(_ text: String) -> String? {
        let words = text.split { !$0.isLetter && !$0.isNumber }
        guard !words.isEmpty else { return nil }
        return words.map { "\"\($0)\"*" }.joined(separator: " ")
    }
}
