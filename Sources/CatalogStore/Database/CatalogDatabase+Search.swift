import GRDB

// MARK: - The search index, kept in step with the item table by the store

/// `item_search` indexes `item` as external content: removing a row's entry needs the values it was
/// indexed with, so entries are removed before a row changes or goes, and added after it is written.
/// Each call is one statement, whatever the number of rows: FTS5 flushes its pending terms at the end of
/// every statement that touches it.
enum SearchIndex {
    /// Indexes the given rows as they are now.
    static func add(_ rowids: [Int64], in db: Database) throws {
        guard !rowids.isEmpty else { return }
        try db.execute(
            sql: """
                INSERT INTO item_search (rowid, title, artist, albumTitle)
                SELECT rowid, title, artist, albumTitle FROM item WHERE rowid IN (SELECT value FROM json_each(?))
                """,
            arguments: [jsonArray(rowids)])
    }

    /// Indexes every row inserted after `rowid` (new rows get rowids above the largest existing one).
    static func add(above rowid: Int64, in db: Database) throws {
        try db.execute(
            sql: """
                INSERT INTO item_search (rowid, title, artist, albumTitle)
                SELECT rowid, title, artist, albumTitle FROM item WHERE rowid > ?
                """,
            arguments: [rowid])
    }

    /// Removes the entries of the given rows, which must still hold the values they were indexed with.
    static func remove(_ rowids: [Int64], in db: Database) throws {
        guard !rowids.isEmpty else { return }
        try db.execute(
            sql: """
                INSERT INTO item_search (item_search, rowid, title, artist, albumTitle)
                SELECT 'delete', rowid, title, artist, albumTitle FROM item
                WHERE rowid IN (SELECT value FROM json_each(?))
                """,
            arguments: [jsonArray(rowids)])
    }

    static func jsonArray(_ rowids: [Int64]) -> String {
        "[" + rowids.map(String.init).joined(separator: ",") + "]"
    }
}
