import ContentTree
import GRDB

// MARK: - Browse: the read side of ContentCatalog, answered from the file alone

/// Item, child count and page reads are single statements: SQLite runs each in its own read transaction,
/// so they need no BEGIN/COMMIT around them, and they run on the caller's thread on a browse connection
/// (see `BrowseReaders`) instead of hopping to a database queue and back.
extension CatalogDatabase: ContentCatalog {
    public func item(identifier: String) async throws -> ContentItem? {
        try readNow { db in try Self.item(identifier, in: db) }
    }

    /// A scan of the items (there is no index on the location): asked only when a client names audio by its
    /// URL (MPRIS's OpenUri), not on any path a head unit's browsing takes.
    public func item(uri: String) async throws -> ContentItem? {
        try await read { db in
            guard let identifier = try String.fetchOne(
                db, sql: "SELECT identifier FROM item WHERE uri = ? AND isPlayable ORDER BY rowid LIMIT 1", arguments: [uri])
            else { return nil }
            return try Self.item(identifier, in: db)
        }
    }

    public func items(identifiers: [String]) async throws -> [String: ContentItem] {
        try await read { db in
            var found: [String: ContentItem] = [:]
            for identifier in identifiers {
                if let item = try Self.item(identifier, in: db) { found[identifier] = item }
            }
            return found
        }
    }

    public func chapters(of identifier: String) async throws -> [ContentChapter]? {
        try readNow { db in try Self.chapters(of: identifier, in: db) }
    }

    public func childCount(of containerIdentifier: String) async throws -> Int {
        try readNow { db in try Self.childCount(containerIdentifier, in: db) }
    }

    public func children(of containerIdentifier: String, offset: Int, limit: Int) async throws -> ContentPage {
        try readNow { db in try Self.children(of: containerIdentifier, offset: offset, limit: limit, in: db) }
    }

    public func summary() async throws -> CatalogSummary {
        try await read { db in
            let sources = try Int.fetchOne(db, sql: "SELECT count(*) FROM source") ?? 0
            let containers = try Int.fetchOne(
                db, sql: "SELECT count(*) FROM item WHERE isContainer AND sourceIdentifier IS NOT NULL") ?? 0
            let playables = try Int.fetchOne(db, sql: "SELECT count(*) FROM item WHERE isPlayable") ?? 0
            return CatalogSummary(sources: sources, containers: containers, playables: playables)
        }
    }

    public func changes() -> AsyncStream<CatalogDiff> { broadcaster.stream() }

    /// Opens a browse connection and reads the root's first page, so that the first reads of the content
    /// tree find the connection, its prepared statement and the upper pages ready. For the node's start,
    /// while other work runs; a failure here is left for those reads to meet and report.
    public func prepareBrowsing() {
        _ = try? readNow { db in try Self.children(of: ContentItem.rootIdentifier, offset: 0, limit: 1, in: db) }
    }

    /// A read of the catalog, off the caller's thread.
    ///
    /// In memory it runs as it is, not as GRDB's `read`: on a database queue that one sets
    /// `PRAGMA query_only` before the read and clears it after, and SQLite expires every statement the
    /// connection has prepared whenever such a pragma changes, so each compiled again at its next use. In a
    /// rig of 10,000 nodes those compiles took a fifth of the CPU. Nothing else reaches the one connection
    /// meanwhile (the queue runs one access at a time), and every body given here only reads.
    func read<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        if isInMemory { return try await pool.unsafeRead(body) }
        return try await pool.read(body)
    }

    /// One-statement reads, synchronously on a browse connection (see above).
    func readNow<T>(_ body: (Database) throws -> T) throws -> T {
        // In memory, the one connection is the only one that sees the content.
        // One statement is a transaction of its own, as on a browse connection: no BEGIN and COMMIT around it.
        if isInMemory { return try pool.unsafeRead(body) }
        return try browseReaders.read(path: path, body)
    }

    // MARK: - Synchronous forms, for callers already inside a database access

    static func item(_ identifier: String, in db: Database) throws -> ContentItem? {
        let statement = try db.cachedStatement(
            sql: "SELECT \(ContentItem.selection) FROM item \(ContentItem.selectionJoins) WHERE item.identifier = ?")
        let rows = try Row.fetchCursor(statement, arguments: [identifier])
        guard try rows.next() != nil else { return nil }
        var item = ContentItem(ColumnReader(statement: statement.sqliteStatement), from: 0)
        if item.isPlayable { item.chapters = try chapters(of: identifier, in: db) }
        return item
    }

    static func childCount(_ identifier: String, in db: Database) throws -> Int {
        let statement = try db.cachedStatement(sql: "SELECT childCount FROM item WHERE identifier = ?")
        return try Int.fetchOne(statement, arguments: [identifier]) ?? 0
    }

    /// A page and the container's child count in one statement. Positions are dense (0..<childCount) per
    /// parent, so `offset` is a seek in the (parent, position) key; each child joins its item by rowid.
    /// The outer joins keep the container's row when the page is empty, for its count. Public for the
    /// benchmark, which runs the same SQL by hand as its floor.
    public static let childPageSQL = """
        SELECT parent.childCount, \(ContentItem.selection) FROM item AS parent
        LEFT JOIN child ON child.parent = parent.identifier AND child.position >= ?2
        LEFT JOIN item ON item.rowid = child.itemRowid
        \(ContentItem.selectionJoins)
        WHERE parent.identifier = ?1 ORDER BY child.position LIMIT ?3
        """

    static func children(of parent: String, offset: Int, limit: Int, in db: Database) throws -> ContentPage {
        let start = max(0, offset)
        let count = max(0, limit)
        let statement = try DirectStatement(db, sql: childPageSQL)
        statement.bind(1, parent)
        statement.bind(2, start)
        // At least one row, so an empty page still reports the count.
        statement.bind(3, max(1, count))
        defer { statement.reset() }
        let columns = statement.columns
        var childCount = 0
        var items: [ContentItem] = []
        items.reserveCapacity(count)
        while try statement.step() {
            childCount = columns.int(0) ?? 0
            guard items.count < count, !columns.isNull(1) else { continue }
            items.append(ContentItem(columns, from: 1))
        }
        return ContentPage(containerIdentifier: parent, childCount: childCount, offset: start, items: items)
    }
}
