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
        try await pool.read { db in
            let rows = try Row.fetchCursor(db, sql: """
                SELECT chapters.identifier, chapters.url, chapters.list FROM chapters
                JOIN item ON item.identifier = chapters.identifier
                WHERE item.sourceIdentifier = ? AND chapters.url IS NOT NULL
                """, arguments: [sourceIdentifier])
            var found: [String: StoredFeedChapters] = [:]
            while let row = try rows.next() {
                guard let chapters = Self.decodeChapters(row[2]) else { continue }
                found[row[0]] = StoredFeedChapters(url: row[1], chapters: chapters)
            }
            return found
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

    /// The stored chapters of one item; nil when it has none.
    static func chapters(of identifier: String, in db: Database) throws -> [ContentChapter]? {
        let statement = try db.cachedStatement(sql: "SELECT list FROM chapters WHERE identifier = ?")
        return try String.fetchOne(statement, arguments: [identifier]).flatMap(decodeChapters)
    }

    static func encodeChapters(_ chapters: [ContentChapter]) -> String {
        (try? String(decoding: JSONEncoder().encode(chapters), as: UTF8.self)) ?? "[]"
    }

    static func decodeChapters(_ text: String?) -> [ContentChapter]? {
        guard let text, let chapters = try? JSONDecoder().decode([ContentChapter].self, from: Data(text.utf8)),
              !chapters.isEmpty
        else { return nil }
        return chapters
    }
}
