import CMalloc
import GRDB
import GRDBSQLite

/// Where the process's heap goes, for the report: how much of it SQLite holds, and how much of that is the
/// nodes' catalogs (their pages, compiled statements and parsed schemas). The rest is the nodes' own
/// objects, their tasks' stacks and the MQTT clients.
struct MemoryUse {
    var heapMiB: Double
    var sqliteMiB: Double
    var catalogPagesMiB: Double
    var statementsMiB: Double
    var schemasMiB: Double

    /// Sums the catalogs' own connections (for file catalogs, each node's writing connection only).
    static func measure(_ fleet: Fleet) -> MemoryUse {
        var (pages, statements, schemas): (Int64, Int64, Int64) = (0, 0, 0)
        func used(_ connection: OpaquePointer?, _ kind: Int32) -> Int64 {
            var current: Int32 = 0, highest: Int32 = 0
            return sqlite3_db_status(connection, kind, &current, &highest, 0) == SQLITE_OK ? Int64(current) : 0
        }
        for member in fleet.members {
            try? member.catalog.pool.writeWithoutTransaction { db in
                pages += used(db.sqliteConnection, SQLITE_DBSTATUS_CACHE_USED)
                statements += used(db.sqliteConnection, SQLITE_DBSTATUS_STMT_USED)
                schemas += used(db.sqliteConnection, SQLITE_DBSTATUS_SCHEMA_USED)
            }
        }
        let mebibyte = 1024.0 * 1024
        return MemoryUse(
            heapMiB: Double(mn_allocated_bytes()) / mebibyte, sqliteMiB: Double(sqlite3_memory_used()) / mebibyte,
            catalogPagesMiB: Double(pages) / mebibyte, statementsMiB: Double(statements) / mebibyte,
            schemasMiB: Double(schemas) / mebibyte)
    }
}
