import ContentTree
import GRDB
import GRDBSQLite

/// A cached statement bound and stepped through SQLite's C API, for the bulk inserts of a refresh
/// (thousands of rows per transaction: GRDB's `StatementArguments` box every value, which cost a third of a
/// library scan's store time) and the child page (where binding and cursor set-up were a tenth of a page).
/// Used only inside a GRDB database access, on its connection.
struct DirectStatement {
    private let statement: Statement
    let handle: SQLiteStatement
    private let connection: SQLiteConnection?

    init(_ db: Database, sql: String) throws {
        statement = try db.cachedStatement(sql: sql)
        handle = statement.sqliteStatement
        connection = db.sqliteConnection
    }

    /// SQLite copies the text (SQLITE_TRANSIENT): Swift's C-string view lasts only for the call.
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    func bind(_ index: Int32, _ value: String?) {
        if let value { sqlite3_bind_text(handle, index, value, -1, Self.transient) } else { sqlite3_bind_null(handle, index) }
    }

    func bind(_ index: Int32, _ value: Int?) {
        if let value { sqlite3_bind_int64(handle, index, Int64(value)) } else { sqlite3_bind_null(handle, index) }
    }

    func bind(_ index: Int32, _ value: Int64?) {
        if let value { sqlite3_bind_int64(handle, index, value) } else { sqlite3_bind_null(handle, index) }
    }

    func bind(_ index: Int32, _ value: Double?) {
        if let value { sqlite3_bind_double(handle, index, value) } else { sqlite3_bind_null(handle, index) }
    }

    func bind(_ index: Int32, _ value: Bool) { sqlite3_bind_int64(handle, index, value ? 1 : 0) }

    /// Runs the bound statement once; SQLite's error becomes GRDB's `DatabaseError`, as from `execute`.
    func run() throws {
        let code = sqlite3_step(handle)
        guard code == SQLITE_DONE else {
            let extended = connection.map { sqlite3_extended_errcode($0) } ?? code
            let message = connection.map { String(cString: sqlite3_errmsg($0)) }
            sqlite3_reset(handle)
            throw DatabaseError(resultCode: ResultCode(rawValue: extended), message: message, sql: statement.sql)
        }
        sqlite3_reset(handle)
    }

    /// Steps once: true with a row to read, false when done. Call `reset` after the last row read.
    func step() throws -> Bool {
        let code = sqlite3_step(handle)
        if code == SQLITE_ROW { return true }
        if code == SQLITE_DONE { return false }
        let message = connection.map { String(cString: sqlite3_errmsg($0)) }
        sqlite3_reset(handle)
        throw DatabaseError(resultCode: ResultCode(rawValue: code), message: message, sql: statement.sql)
    }

    func reset() { sqlite3_reset(handle) }

    /// The current row's columns.
    var columns: ColumnReader { ColumnReader(statement: handle) }

    /// Binds the 25 columns of `CatalogSchema.itemColumns` from parameter 1.
    func bindItem(_ item: ContentItem, source: String?, digest: String) {
        bind(1, item.identifier)
        bind(2, source)
        bind(3, item.title)
        bind(4, item.subtitle)
        bind(5, item.artworkKey)
        bind(6, item.artworkURL)
        bind(7, item.isContainer)
        bind(8, item.isPlayable)
        bind(9, item.isStreamingContent)
        bind(10, item.isExplicitContent)
        bind(11, item.displaysPlaybackProgress)
        bind(12, item.uri)
        bind(13, item.artist)
        bind(14, item.albumTitle)
        bind(15, item.duration)
        bind(16, item.trackNumber)
        bind(17, item.trackCount)
        bind(18, item.discNumber)
        bind(19, item.discCount)
        bind(20, item.genre)
        bind(21, item.releaseDate)
        bind(22, item.composer)
        bind(23, item.summary)
        bind(24, item.containerIdentifier)
        bind(25, digest)
    }
}
