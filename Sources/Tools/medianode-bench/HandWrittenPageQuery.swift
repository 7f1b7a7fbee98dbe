import CatalogStore
import Foundation
import GRDBSQLite

/// The floor for the child-page and search benchmarks: the store's SQL run by hand on a plain SQLite connection
/// with the store's settings (no per-call mutex, as GRDB opens them; the browse connections' page cache),
/// prepared once, every column of every row read (text as bytes, no Swift objects built).
final class HandWrittenPageQuery {
    private var connection: OpaquePointer?
    private var statement: OpaquePointer?
    /// Keeps the reads from being optimised away.
    private(set) var checksum = 0

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    init(path: String, sql: String) throws {
        guard sqlite3_open_v2(path, &connection, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, nil) == SQLITE_OK,
            sqlite3_exec(connection, "PRAGMA cache_size = -\(CatalogDatabase.browseCacheKiB)", nil, nil, nil) == SQLITE_OK,
            sqlite3_prepare_v3(connection, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil) == SQLITE_OK
        else {
            let message = connection.map { String(cString: sqlite3_errmsg($0)) } ?? "cannot open \(path)"
            sqlite3_close(connection)
            throw Failure(description: message)
        }
    }

    /// One page: bind, step to the end, read each column.
    func run(_ parent: String, _ offset: Int, _ limit: Int) throws {
        try run([.text(parent), .integer(offset), .integer(max(1, limit))])
    }

    /// A parameter of the statement, bound by position from 1.
    enum Argument {
        case text(String)
        case integer(Int)
    }

    /// Binds the arguments, steps to the end and reads each column of each row.
    func run(_ arguments: [Argument]) throws {
        for (index, argument) in arguments.enumerated() {
            switch argument {
            case let .text(text):
                sqlite3_bind_text(statement, Int32(index + 1), text, -1, unsafeBitCast(-1, to: sqlite3_destructor_type.self))
            case let .integer(value):
                sqlite3_bind_int64(statement, Int32(index + 1), Int64(value))
            }
        }
        defer { sqlite3_reset(statement) }
        var result = sqlite3_step(statement)
        while result == SQLITE_ROW {
            for column in 0..<sqlite3_column_count(statement) {
                switch sqlite3_column_type(statement, column) {
                case SQLITE_TEXT, SQLITE_BLOB:
                    _ = sqlite3_column_text(statement, column)
                    checksum &+= Int(sqlite3_column_bytes(statement, column))
                case SQLITE_INTEGER: checksum &+= Int(sqlite3_column_int64(statement, column))
                case SQLITE_FLOAT: checksum &+= Int(sqlite3_column_double(statement, column))
                default: break
                }
            }
            result = sqlite3_step(statement)
        }
        guard result == SQLITE_DONE else { throw Failure(description: String(cString: sqlite3_errmsg(connection))) }
    }

    func close() {
        sqlite3_finalize(statement)
        sqlite3_close(connection)
        statement = nil
        connection = nil
    }
}
