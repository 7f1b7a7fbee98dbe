import Foundation
import GRDB
import Logging

/// What one save of the node's own state changes: the play state (its queue's rows only when the queue
/// changed) or only its position, and the listener's volume.
public struct NodeStateChanges: Sendable, Equatable {
    public var playState: SavedPlayState?
    public var queueChanged = false
    /// Only the saved position moved (the play state is written whole when `playState` is set).
    public var position: Position?
    public var volume: Double?

    public struct Position: Sendable, Equatable {
        public var elapsed: Double
        public var savedAt: Double

        public init(elapsed: Double, savedAt: Double) {
            self.elapsed = elapsed
            self.savedAt = savedAt
        }
    }

    public init(playState: SavedPlayState? = nil, queueChanged: Bool = false, position: Position? = nil, volume: Double? = nil) {
        self.playState = playState
        self.queueChanged = queueChanged
        self.position = position
        self.volume = volume
    }

    public var isEmpty: Bool { playState == nil && position == nil && volume == nil }

    /// `newer` laid over these changes, as one save of both would write them.
    public mutating func merge(_ newer: NodeStateChanges) {
        if let state = newer.playState {
            // A queue written by neither save is still to be written: the newer state holds the queue as it is.
            queueChanged = queueChanged || newer.queueChanged
            playState = state
            position = nil
        } else if let moved = newer.position {
            if playState != nil {
                playState?.elapsed = moved.elapsed
                playState?.savedAt = moved.savedAt
            } else {
                position = moved
            }
        }
        if let level = newer.volume { volume = level }
    }
}

/// The node's own small state that changes while it plays (the play state with its queue, the listener's
/// volume), in a file of its own beside the catalog: `<catalog>.state`.
///
/// Not in the catalog file, for two reasons. A save there is a 4 KiB page in the write-ahead log plus the
/// pages of its shared-memory index: 7 to 9 KiB dirtied per commit on ext4, over 40 KiB a minute for a
/// position every 10 s. Here pages are 512 bytes and, since only the node opens the file, it is locked
/// exclusively, which keeps the WAL's index in the process's memory instead of a shared-memory file: about
/// 2 KiB per commit. And a catalog refresh holds the catalog's one writer for seconds while it swaps in
/// thousands of items; a position saved here never waits for it.
///
/// The file is WAL with `synchronous = NORMAL`, as the catalog: a kill loses nothing committed, a power cut
/// at most the last commits, and neither leaves it corrupt. Being locked, it cannot be read by another
/// process while the node runs.
public final class NodeStateFile: Sendable {
    public let path: String
    /// True when this open created the file: an earlier version's state may still be in the catalog.
    public let isNew: Bool
    private let queue: DatabaseQueue

    /// The state file of the catalog at `catalogPath`.
    public static func path(besideCatalog catalogPath: String) -> String { catalogPath + ".state" }

    /// Opens or creates the file. One that is not a database or fails its check is moved aside to
    /// `<path>.corrupt-<timestamp>` and replaced by an empty one: the node starts stopped rather than not at all.
    public init(path: String, logger: Logger = Logger(label: "medianode.state")) throws {
        self.path = path
        var isNew = !FileManager.default.fileExists(atPath: path)
        let queue: DatabaseQueue
        do {
            queue = try Self.open(path: path)
        } catch where CatalogDatabase.isCorruption(error) {
            let stamp = CatalogDatabase.timestamp()
            for suffix in ["", "-wal"] where FileManager.default.fileExists(atPath: path + suffix) {
                try FileManager.default.moveItem(atPath: path + suffix, toPath: "\(path)\(suffix).corrupt-\(stamp)")
            }
            logger.error("the node state file is corrupt; moved aside, starting without a saved play state",
                         metadata: ["path": "\(path)", "movedTo": "\(path).corrupt-\(stamp)", "error": "\(error)"])
            queue = try Self.open(path: path)
            isNew = false
        }
        self.queue = queue
        self.isNew = isNew
    }

    private init(memory: DatabaseQueue, standingFor path: String) {
        self.path = path
        self.queue = memory
        self.isNew = false
    }

    /// A state held in memory, empty, beside a catalog in memory (`CatalogDatabase.inMemory`): for the fleet
    /// rig, whose nodes cannot each keep a file open. It is lost with the process.
    public static func inMemory(beside catalog: CatalogDatabase) throws -> NodeStateFile {
        let memory = try DatabaseQueue(configuration: InMemoryDatabases.configuration())
        try migrator.migrate(memory)
        return NodeStateFile(memory: memory, standingFor: path(besideCatalog: catalog.path))
    }

    /// A state held in memory as `inMemory(beside:)` makes, copied from `template` (one made so and not yet
    /// written): the copy takes its pages, where migrating each node's anew compiled every statement of the
    /// schema again, a tenth of a 1,000-node rig's start.
    public static func inMemory(copying template: NodeStateFile, beside catalog: CatalogDatabase) throws -> NodeStateFile {
        let memory = try DatabaseQueue(configuration: InMemoryDatabases.configuration())
        try template.queue.backup(to: memory)
        return NodeStateFile(memory: memory, standingFor: path(besideCatalog: catalog.path))
    }

    static func open(path: String) throws -> DatabaseQueue {
        var configuration = Configuration()
        configuration.busyMode = .timeout(2)
        configuration.prepareDatabase { db in
            // In this order: the page size only takes on a new file, and exclusive locking must hold before the
            // file first enters WAL mode for the WAL's index to stay in memory.
            try db.execute(sql: "PRAGMA page_size = 512")
            try db.execute(sql: "PRAGMA locking_mode = EXCLUSIVE")
            try db.execute(sql: "PRAGMA journal_mode = WAL")
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
            // A checkpoint every 32 frames (16 KiB), after which the WAL is written again from its start: its
            // pages are rewritten in place instead of the file growing, and ext4 writes an append's page out
            // with its next journal commit (every 5 s), so each save would dirty a fresh page.
            try db.execute(sql: "PRAGMA wal_autocheckpoint = 32")
        }
        let queue = try DatabaseQueue(path: path, configuration: configuration)
        let check = try queue.read { db in try String.fetchAll(db, sql: "PRAGMA quick_check") }
        guard check == ["ok"] else {
            try? queue.close()
            throw CatalogDatabaseError.integrityCheckFailed(check.prefix(5).joined(separator: "; "))
        }
        try migrator.migrate(queue)
        return queue
    }

    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("node state") { db in
            try db.execute(sql: """
                CREATE TABLE play_state (
                    id INTEGER PRIMARY KEY CHECK (id = 1),
                    currentIndex INTEGER,
                    elapsed REAL NOT NULL,
                    repeatMode TEXT NOT NULL,
                    shuffleMode TEXT NOT NULL,
                    rate REAL NOT NULL,
                    state TEXT NOT NULL,
                    context TEXT NOT NULL,
                    savedAt REAL NOT NULL
                );
                CREATE TABLE play_queue (
                    playIndex INTEGER PRIMARY KEY,
                    identifier TEXT NOT NULL,
                    originalIndex INTEGER NOT NULL,
                    container TEXT
                );
                CREATE TABLE node_setting (key TEXT PRIMARY KEY NOT NULL, value) WITHOUT ROWID;
                """)
        }
        return migrator
    }

    /// Opens the state file beside `catalog`, taking over the state an earlier version kept in the catalog.
    public static func beside(_ catalog: CatalogDatabase, logger: Logger = Logger(label: "medianode.state")) async throws
        -> NodeStateFile
    {
        let file = try NodeStateFile(path: path(besideCatalog: catalog.path), logger: logger)
        do {
            try await file.takeOver(from: catalog)
        } catch {
            logger.warning("could not move the play state and volume from the catalog to \(file.path): \(error)")
        }
        return file
    }

    public func close() throws { try queue.close() }

    // MARK: - Reading and writing

    /// The play state an earlier run saved; nil when none was. A row that cannot be read is an error.
    public func savedPlayState() async throws -> SavedPlayState? {
        try await queue.read { db in try PlayStateRows.read(db) }
    }

    public func savedVolume() async throws -> Double? {
        try await queue.read { db in try NodeSettingRows.volume(db) }
    }

    /// Writes `changes` in one transaction, on the calling thread.
    ///
    /// The file has one writer, the node's save lane, so its queue is free and GRDB runs the transaction
    /// here: a hop to the queue's thread and back cost two thread wake-ups a save, in a rig one a command.
    /// A commit appends a few pages to the WAL without a sync (`synchronous = NORMAL`); the checkpoint's
    /// sync, every few hundred saves, is the longest this holds the thread.
    public func write(_ changes: NodeStateChanges) async throws {
        guard !changes.isEmpty else { return }
        try queue.inTransaction { db in
            if let state = changes.playState {
                try PlayStateRows.write(state, queueChanged: changes.queueChanged, in: db)
            } else if let moved = changes.position {
                try PlayStateRows.writePosition(moved.elapsed, savedAt: moved.savedAt, in: db)
            }
            if let level = changes.volume { try NodeSettingRows.setVolume(level, in: db) }
            return .commit
        }
    }

    /// Moves the play state and volume an earlier version kept in the catalog file here, once: when this
    /// file is new. The catalog's copies are removed, so a state file deleted later is not refilled with them.
    public func takeOver(from catalog: CatalogDatabase) async throws {
        guard isNew else { return }
        let (state, volume) = try await catalog.pool.read { db in (try? PlayStateRows.read(db), try NodeSettingRows.volume(db)) }
        guard state != nil || volume != nil else { return }
        try await queue.write { db in
            if let state = state ?? nil { try PlayStateRows.write(state, queueChanged: true, in: db) }
            if let volume { try NodeSettingRows.setVolume(volume, in: db) }
        }
        try await catalog.pool.write { db in
            try PlayStateRows.clear(in: db)
            try NodeSettingRows.clearVolume(in: db)
        }
    }
}
