import ContentTree
import Foundation
import GRDB
import Logging

/// The offline catalog in one SQLite file (WAL): the only place browse answers come from (S26, S29).
///
/// Readers never wait for a refresh: a source's new content is swapped in by one write transaction, so
/// readers (and a process killed mid-refresh) see either the previous complete catalog or the new one.
public final class CatalogDatabase: Sendable {
    /// The underlying pool, for tests and measurements that want plain SQL.
    public let pool: DatabasePool
    public let path: String
    let logger: Logger
    let broadcaster = ChangeBroadcaster()
    let browseReaders = BrowseReaders()

    /// Opens (creating or migrating) the catalog at `path`.
    ///
    /// A file that is not a database or fails `PRAGMA quick_check` is moved aside to
    /// `<path>.corrupt-<timestamp>` (with its -wal and -shm) and replaced by an empty catalog: the node must
    /// come up and browse local media even when the cache is lost. Other errors (permissions, full disk) throw.
    public init(path: String, checkIntegrity: Bool = true, logger: Logger = Logger(label: "medianode.catalog")) throws {
        self.path = path
        self.logger = logger
        do {
            pool = try Self.open(path: path, checkIntegrity: checkIntegrity)
        } catch let failure where Self.isCorruption(failure) {
            let aside = try Self.moveAside(path: path)
            logger.error(
                "catalog database is corrupt; moved aside and rebuilt empty",
                metadata: ["path": "\(path)", "movedTo": "\(aside)", "error": "\(failure)"])
            pool = try Self.open(path: path, checkIntegrity: false)
        }
    }

    /// Closes the pool; further calls throw. Pending readers finish first.
    public func close() throws {
        try browseReaders.close()
        try pool.close()
    }

    // MARK: - Opening

    static func open(path: String, checkIntegrity: Bool) throws -> DatabasePool {
        var configuration = Configuration()
        configuration.busyMode = .timeout(10)
        configuration.prepareDatabase { db in
            // WAL + NORMAL: commits survive a process kill; only a power cut may lose the last ones.
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
        }
        let pool = try DatabasePool(path: path, configuration: configuration)
        if checkIntegrity {
            let result = try pool.read { db in try String.fetchAll(db, sql: "PRAGMA quick_check") }
            guard result == ["ok"] else {
                try? pool.close()
                throw CatalogDatabaseError.integrityCheckFailed(result.prefix(5).joined(separator: "; "))
            }
        }
        try CatalogSchema.migrator.migrate(pool)
        return pool
    }

    static func isCorruption(_ error: any Error) -> Bool {
        if case CatalogDatabaseError.integrityCheckFailed = error { return true }
        guard let error = error as? DatabaseError else { return false }
        return error.resultCode == .SQLITE_NOTADB || error.resultCode == .SQLITE_CORRUPT
    }

    /// Renames the database and its WAL/SHM files with a `.corrupt-<timestamp>` suffix; returns the new path.
    static func moveAside(path: String) throws -> String {
        let stamp = Self.timestamp()
        let manager = FileManager.default
        let target = "\(path).corrupt-\(stamp)"
        try manager.moveItem(atPath: path, toPath: target)
        for suffix in ["-wal", "-shm"] where manager.fileExists(atPath: path + suffix) {
            try? manager.moveItem(atPath: path + suffix, toPath: "\(path)\(suffix).corrupt-\(stamp)")
        }
        return target
    }

    static func timestamp() -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyyMMdd'T'HHmmss.SSS'Z'"
        return formatter.string(from: Date())
    }
}

public enum CatalogDatabaseError: Error, CustomStringConvertible, Equatable {
    case integrityCheckFailed(String)
    case unknownSource(String)
    case invalidSnapshot(String)

    public var description: String {
        switch self {
        case let .integrityCheckFailed(detail): "integrity check failed: \(detail)"
        case let .unknownSource(identifier): "unknown catalog source \(identifier)"
        case let .invalidSnapshot(detail): "invalid catalog snapshot: \(detail)"
        }
    }
}
