import ContentTree
import Foundation
import GRDB

// MARK: - Chapters: written with their items by a refresh, read with a single item

/// The chapters a feed's `podcast:chapters` URL gave, as stored: what a refresh reuses instead of fetching the
/// same URL again.
public struct StoredFeedChapters: Sendable, Hashable {
    public var url: String
    public var chapters: [ContentChapter]

    public init(url: String, chapters: [ContentChapter]) {
        self.url = url
        self.chapters = chapters
    }
}

extension CatalogDatabase {
    /// The chapters stored for the items of a source that came from a `podcast:chapters` URL, by item.
    public func storedFeedChapters(of sourceIdentifier: String) async throws -> [String: StoredFeedChapters] {
        try await read { db in
            let lists = try Self.chapterLists(db.cachedStatement(sql: """
                SELECT chapters.identifier, json_extract(entry.value, '$.startTime'), json_extract(entry.value, '$.title'),
                    chapters.url
                FROM item JOIN chapters ON chapters.identifier = item.identifier, json_each(chapters.list) AS entry
                WHERE item.sourceIdentifier = ? AND chapters.url IS NOT NULL ORDER BY chapters.identifier, entry.key
                """), arguments: [sourceIdentifier])
            return lists.mapValues { StoredFeedChapters(url: $0.extra ?? "", chapters: $0.chapters) }
        }
    }

    /// Writes the chapters of items a refresh inserted or changed (an unchanged item keeps its row; a removed
    /// one loses it with its item row).
    static func storeChapters(of items: [ContentItem], in db: Database) throws {
        guard !items.isEmpty else { return }
        let upsert = try db.cachedStatement(sql: "INSERT OR REPLACE INTO chapters (identifier, list, url) VALUES (?, ?, ?)")
        let delete = try db.cachedStatement(sql: "DELETE FROM chapters WHERE identifier = ?")
        for item in items where !item.isContainer {
            if let chapters = item.chapters, !chapters.isEmpty {
                try upsert.execute(arguments: [item.identifier, encodeChapters(chapters), item.chaptersURL])
            } else {
                try delete.execute(arguments: [item.identifier])
            }
        }
    }

    /// The stored chapters of one item; nil when it has none. SQLite's JSON functions take the list apart:
    /// a parse in Swift cost three times the rest of the item's read.
    static func chapters(of identifier: String, in db: Database) throws -> [ContentChapter]? {
        let statement = try db.cachedStatement(sql: """
            SELECT chapters.identifier, json_extract(entry.value, '$.startTime'), json_extract(entry.value, '$.title'), NULL
            FROM chapters, json_each(chapters.list) AS entry WHERE chapters.identifier = ? ORDER BY entry.key
            """)
        return try chapterLists(statement, arguments: [identifier])[identifier]?.chapters
    }

    /// Chapter lists from rows of (owner, start, title, extra), in order within each owner.
    static func chapterLists(_ statement: Statement, arguments: StatementArguments)
        throws -> [String: (chapters: [ContentChapter], extra: String?)] {
        let columns = ColumnReader(statement: statement.sqliteStatement)
        var lists: [String: (chapters: [ContentChapter], extra: String?)] = [:]
        let rows = try Row.fetchCursor(statement, arguments: arguments)
        while try rows.next() != nil {
            guard let owner = columns.string(0), let start = columns.double(1), let title = columns.string(2) else { continue }
            lists[owner, default: ([], columns.string(3))].chapters.append(ContentChapter(title: title, startTime: start))
        }
        return lists
    }

    static func encodeChapters(_ chapters: [ContentChapter]) -> String { chapters.storedJSON }
}
