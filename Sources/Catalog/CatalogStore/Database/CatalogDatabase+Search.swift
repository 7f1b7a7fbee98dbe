import ContentTree
import Foundation
import GRDB

// MARK: - The search index, kept in step with the item table by the store

/// `item_search` holds a copy of the searchable rows' names (it has its own content since v7), so an entry
/// is removed by rowid alone, before its row changes or goes, and added after the row is written;
/// `item_title_key` holds each entry's folded title beside it, indexed, for titles equal to a query. Each
/// call is one statement per table, whatever the number of rows: FTS5 flushes its pending terms at the end
/// of every statement that touches it. Every call runs inside the refresh's or scan's own write transaction.
enum SearchIndex {
    /// The rows search answers with: playable items, and the containers a listener asks for by name
    /// (albums, artists, podcast shows, a JSON catalog's own containers). Not the ways of browsing: the
    /// sections (no source), a library's Artists, Albums, Songs and Genres lists (named `<source>:<list>`)
    /// and its genres.
    static let searchable = """
        (isPlayable OR (isContainer AND sourceIdentifier IS NOT NULL AND identifier NOT LIKE 'genre:%'
            AND substr(identifier, 1, length(sourceIdentifier) + 1) <> sourceIdentifier || ':'))
        """

    /// Indexes the given rows as they are now (those that are searchable).
    static func add(_ rowids: [Int64], in db: Database) throws {
        guard !rowids.isEmpty else { return }
        try add(where: "rowid IN (SELECT value FROM json_each(?))", [jsonArray(rowids)], in: db)
    }

    /// Indexes every row inserted after `rowid` (new rows get rowids above the largest existing one).
    static func add(above rowid: Int64, in db: Database) throws {
        try add(where: "rowid > ?", [rowid], in: db)
    }

    /// Indexes every searchable row: the migration's build of the index for a file that already has items.
    static func addAll(in db: Database) throws {
        try add(where: "1", [], in: db)
    }

    private static func add(where filter: String, _ arguments: StatementArguments, in db: Database) throws {
        try db.execute(
            sql: """
                INSERT INTO item_search (rowid, title, artist, albumTitle)
                SELECT rowid, title, artist, albumTitle FROM item WHERE \(filter) AND \(searchable)
                """,
            arguments: arguments)
        try db.execute(
            sql: """
                INSERT OR REPLACE INTO item_title_key (rowid, titleKey)
                SELECT rowid, \(SearchKey.functionName)(title) FROM item WHERE \(filter) AND \(searchable)
                """,
            arguments: arguments)
    }

    /// Removes the entries of the given rows (rows never indexed are passed over).
    static func remove(_ rowids: [Int64], in db: Database) throws {
        guard !rowids.isEmpty else { return }
        for table in ["item_search", "item_title_key"] {
            try db.execute(
                sql: "DELETE FROM \(table) WHERE rowid IN (SELECT value FROM json_each(?))", arguments: [jsonArray(rowids)])
        }
    }

    static func jsonArray(_ rowids: [Int64]) -> String {
        "[" + rowids.map(String.init).joined(separator: ",") + "]"
    }
}

// MARK: - Folding titles and queries alike

/// A title or query folded for comparison: case and diacritics dropped, words joined by single spaces, so
/// "Ångström!" and "angstrom" have the same key. The index stores each title's key; a query's key equal to
/// it is the best kind of match.
enum SearchKey {
    static let functionName = "medianode_search_key"

    /// The words of a text, as the index's tokenizer splits them: runs of letters and digits.
    static func words(_ text: String) -> [Substring] {
        text.split { !$0.isLetter && !$0.isNumber }
    }

    static func of(_ text: String) -> String {
        words(text.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil)).joined(separator: " ")
    }

    /// The key as an SQL function, for the statements that fill the index; registered on every connection
    /// the store writes with (see `CatalogDatabase.open`).
    static let function = DatabaseFunction(functionName, argumentCount: 1, pure: true) { values in
        String.fromDatabaseValue(values[0]).map(of)
    }
}
