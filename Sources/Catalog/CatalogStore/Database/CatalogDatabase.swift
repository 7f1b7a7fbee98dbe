import ContentTree
import Foundation
import GRDB
import Logging
import Synchronization

/// The offline catalog in one SQLite file (WAL): the only place browse answers come from (S26, S29).
///
/// Readers never wait for a refresh: a source's new content is swapped in by one write transaction, so
/// readers (and a process killed mid-refresh) see either the previous complete catalog or the new one.
public final class CatalogDatabase: Sendable {
    /// The underlying pool (one connection for a catalog in memory), for tests and measurements that want
    /// plain SQL. Replaced only when a deferred integrity check finds the file corrupt and rebuilds it
    /// (`verifyIntegrity()`).
    public var pool: any DatabaseWriter { currentPool.withLock { $0 } }
    /// The file; for a catalog in memory, the file it stands for (downloads go beside it).
    public let path: String
    /// True for a catalog held in memory (`inMemory(copying:standingFor:)`), which no file backs.
    public let isInMemory: Bool
    let logger: Logger
    let broadcaster = ChangeBroadcaster()
    let browseReaders = BrowseReaders()
    let currentPool: Mutex<any DatabaseWriter>

    /// How much of the file is checked before it is used.
    public enum IntegrityCheck: Sendable {
        /// `PRAGMA quick_check` before use: it reads every page (about 0.1 s per 50 MB).
        case atOpen
        /// Only what opening reads (the header and the schema); `verifyIntegrity()` does the full check
        /// later, once the node is up, so a large cache does not delay the start.
        case deferred
        /// None, for measurements on files they have just written.
        case skipped
    }

    /// Opens (creating or migrating) the catalog at `path`, checking it fully first unless told not to.
    public convenience init(path: String, checkIntegrity: Bool = true,
                            logger: Logger = Logger(label: "medianode.catalog")) throws {
        try self.init(path: path, integrityCheck: checkIntegrity ? .atOpen : .skipped, logger: logger)
    }

    /// Opens (creating or migrating) the catalog at `path`.
    ///
    /// A file that is not a database, fails the check, or was found corrupt while in use by an earlier
    /// run is moved aside to `<path>.corrupt-<timestamp>` (with its -wal and -shm) and replaced by an
    /// empty catalog: the node must come up and browse local media even when the cache is lost. Other
    /// errors (permissions, full disk) throw.
    public init(path: String, integrityCheck: IntegrityCheck,
                logger: Logger = Logger(label: "medianode.catalog")) throws {
        self.path = path
        self.logger = logger
        let pool: DatabasePool
        do {
            if let marked = Self.rebuildMark(path: path) { throw CatalogDatabaseError.integrityCheckFailed(marked) }
            pool = try Self.open(path: path, checkIntegrity: integrityCheck == .atOpen)
        } catch let failure where Self.isCorruption(failure) {
            let aside = try Self.moveAside(path: path)
            logger.error(
                "catalog database is corrupt; moved aside and rebuilt empty",
                metadata: ["path": "\(path)", "movedTo": "\(aside)", "error": "\(failure)"])
            pool = try Self.open(path: path, checkIntegrity: false)
        }
        currentPool = Mutex(pool)
        isInMemory = false
    }

    private init(memory: DatabaseQueue, standingFor path: String, logger: Logger) {
        self.path = path
        self.logger = logger
        currentPool = Mutex(memory)
        isInMemory = true
    }

    /// A catalog held in memory, with the content of `source` copied into it.
    ///
    /// For the fleet rig, whose thousands of nodes in one process cannot each keep a file open (a file costs
    /// a node about a dozen descriptors: the database and its log for every connection, and the shared
    /// memory): the same schema, queries and writes, on one connection and none of the files. Nothing in it
    /// outlives the process. `path` names the file it stands for: downloads go in a folder beside it.
    public static func inMemory(copying source: CatalogDatabase, standingFor path: String,
                                logger: Logger = Logger(label: "medianode.catalog")) throws -> CatalogDatabase {
        let memory = try DatabaseQueue(configuration: InMemoryDatabases.configuration(configuration))
        try source.pool.backup(to: memory)
        return CatalogDatabase(memory: memory, standingFor: path, logger: logger)
    }

    /// Closes the pool; further calls throw. Pending readers finish first.
    public func close() throws {
        try browseReaders.close()
        try pool.close()
    }

    // MARK: - Opening

    static var configuration: Configuration {
        var configuration = Configuration()
        configuration.busyMode = .timeout(10)
        configuration.prepareDatabase { db in
            // WAL + NORMAL: commits survive a process kill; only a power cut may lose the last ones.
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
            // Filling the search index folds titles with it.
            db.add(function: SearchKey.function)
        }
        return configuration
    }

    static func open(path: String, checkIntegrity: Bool) throws -> DatabasePool {
        let pool = try DatabasePool(path: path, configuration: configuration)
        if checkIntegrity {
            let result = try pool.read { db in try String.fetchAll(db, sql: "PRAGMA quick_check") }
            guard result == ["ok"] else {
                try? pool.close()
                throw CatalogDatabaseError.integrityCheckFailed(result.prefix(5).joined(separator: "; "))
            }
        }
        let migrator = CatalogSchema.migrator
        if try pool.read({ try !migrator.hasCompletedMigrations($0) }) {
            // Each migration's pages are moved from the write-ahead log into the file as it commits, so the
            // next one writes the log from its start: all of a new file's migrations together fill more log
            // than the file they make (over 400 KB), which a file-size limit can refuse though the file itself
            // would fit (each file counts alone). Emptied at the end, the log leaves its room to the first scan.
            let interval = try pool.writeWithoutTransaction { try Int.fetchOne($0, sql: "PRAGMA wal_autocheckpoint") } ?? 1000
            try pool.writeWithoutTransaction { try $0.execute(sql: "PRAGMA wal_autocheckpoint = 1") }
            defer { try? pool.writeWithoutTransaction { try $0.execute(sql: "PRAGMA wal_autocheckpoint = \(interval)") } }
            try migrator.migrate(pool)
            _ = try? pool.writeWithoutTransaction { try $0.checkpoint(.truncate) }
        }
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
        for suffix in ["-wal", "-shm", rebuildMarkSuffix] where manager.fileExists(atPath: path + suffix) {
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
