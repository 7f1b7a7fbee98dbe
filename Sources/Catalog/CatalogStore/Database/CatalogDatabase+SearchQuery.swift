import ContentTree
import GRDB

// MARK: - Search: the best matches and their count in one statement, from the file alone

/// A listener's text as the index's queries. Every word becomes a quoted prefix term, so nothing the
/// listener types is FTS5 syntax: `NEAR`, `AND`, `*`, `-`, quotes, parentheses and column names are words
/// or separators like any other.
public struct SearchQuery: Sendable, Hashable {
    /// Matches rows that hold every word as a word prefix in any column.
    public var anyColumn: String
    /// The same, in the title alone.
    public var title: String
    /// The folded text, equal to the `titleKey` of a title equal to the query.
    public var key: String

    /// Nil when the text has no words (only punctuation or spaces): it matches nothing.
    public init?(_ text: String) {
        let words = SearchKey.words(text)
        guard !words.isEmpty else { return nil }
        // Words hold only letters and digits; doubling quotes keeps that safe should the split ever change.
        let terms = words.map { "\"" + $0.replacingOccurrences(of: "\"", with: "\"\"") + "\"*" }.joined(separator: " ")
        anyColumn = terms
        title = "title : (\(terms))"
        key = SearchKey.of(text)
    }

    /// Ranks every match (0: the title equals the query, 1: the title holds every word, 2: the rest; ties
    /// in catalog order, which is rowid order), cuts the page, and counts the matches before the cut. The
    /// count rides on each row of the page, so a page and its total come from one read transaction.
    /// Parameters: 1 `anyColumn`, 2 `key`, 3 `title`, 4 the page size (at least 1, for the count).
    /// Public for the benchmark, which runs the same SQL by hand as its floor.
    public static let sql = """
        SELECT page.total, \(ContentItem.selection) FROM (
            SELECT rowid, tier, count(*) OVER () AS total FROM (
                SELECT rowid, CASE
                    WHEN rowid IN (SELECT rowid FROM item_title_key WHERE titleKey = ?2) THEN 0
                    WHEN rowid IN (SELECT rowid FROM item_search WHERE item_search MATCH ?3) THEN 1
                    ELSE 2 END AS tier
                FROM item_search WHERE item_search MATCH ?1)
            ORDER BY tier, rowid LIMIT ?4) AS page
        JOIN item ON item.rowid = page.rowid
        \(ContentItem.selectionJoins)
        ORDER BY page.tier, page.rowid
        """
}

extension CatalogDatabase {
    public func search(_ text: String, limit: Int) async throws -> SearchResults {
        guard let query = SearchQuery(text) else { return SearchResults(items: [], total: 0) }
        return try readNow { db in try Self.search(query, limit: limit, in: db) }
    }

    /// One statement, so one read transaction on a browse connection (see `readNow`).
    static func search(_ query: SearchQuery, limit: Int, in db: Database) throws -> SearchResults {
        let count = max(0, limit)
        let statement = try DirectStatement(db, sql: SearchQuery.sql)
        statement.bind(1, query.anyColumn)
        statement.bind(2, query.key)
        statement.bind(3, query.title)
        statement.bind(4, max(1, count))
        defer { statement.reset() }
        let columns = statement.columns
        var total = 0
        var items: [ContentItem] = []
        items.reserveCapacity(min(count, 100))
        while try statement.step() {
            total = columns.int(0) ?? 0
            guard items.count < count else { continue }
            items.append(ContentItem(columns, from: 1))
        }
        return SearchResults(items: items, total: total)
    }
}
