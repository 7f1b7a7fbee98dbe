import Foundation
import GRDB
import Synchronization

/// Read-only connections kept for the browse path (item, child count, child page), borrowed by the calling
/// thread for the ~0.1 ms a page takes.
///
/// The pool's readers cost a semaphore, a dispatch hop and a schema-version query per access, a fifth of a
/// page's time; these connections are used directly and each keeps a larger page cache, since a page of
/// albums touches fifty pages of the item table. Each statement they run is its own read transaction, so a
/// page never mixes two refreshes.
final class BrowseReaders: Sendable {
    private let idle = Mutex<[DatabaseQueue]>([])
    private let closed = Mutex(false)
    /// Grows when the file is replaced (`reset`): connections to the old one are not kept.
    private let generation = Mutex(0)

    /// Connections kept idle; more are opened under concurrent browsing and closed when returned.
    static let keptIdle = 3
    /// Each connection's page cache (SQLite's default is 2 MiB).
    static let cacheKiB = 16 * 1024

    /// Runs `body` on an idle connection to `path`, opening one if none is idle.
    func read<T>(path: String, _ body: (Database) throws -> T) throws -> T {
        guard !closed.withLock({ $0 }) else { throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "catalog database is closed") }
        let opened = generation.withLock { $0 }
        let connection = try idle.withLock { $0.popLast() } ?? Self.open(path)
        defer {
            idle.withLock { connections in
                if connections.count < Self.keptIdle, !closed.withLock({ $0 }), generation.withLock({ $0 }) == opened {
                    connections.append(connection)
                }
            }
        }
        return try connection.inDatabase(body)
    }

    /// Closes the idle connections before the file is moved aside and replaced; later reads open the new
    /// file, and connections still lent out close when returned.
    func reset() throws {
        generation.withLock { $0 += 1 }
        for connection in idle.withLock({ connections in
            defer { connections.removeAll() }
            return connections
        }) {
            try connection.close()
        }
    }

    /// Closes the idle connections; later reads throw. Connections still lent out close when returned.
    func close() throws {
        closed.withLock { $0 = true }
        for connection in idle.withLock({ connections in
            defer { connections.removeAll() }
            return connections
        }) {
            try connection.close()
        }
    }

    private static func open(_ path: String) throws -> DatabaseQueue {
        var configuration = Configuration()
        configuration.readonly = true
        configuration.busyMode = .timeout(10)
        configuration.label = "catalog.browse"
        configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA cache_size = -\(cacheKiB)") }
        return try DatabaseQueue(path: path, configuration: configuration)
    }
}

extension CatalogDatabase {
    /// The page cache of each browse connection, for a benchmark floor that opens its own with the same
    /// settings.
    public static var browseCacheKiB: Int { BrowseReaders.cacheKiB }
}
