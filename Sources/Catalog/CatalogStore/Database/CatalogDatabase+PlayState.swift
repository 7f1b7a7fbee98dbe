import GRDB

// MARK: - The play state kept across restarts (resume after ignition)

/// What the node was playing when it last saved: the queue in the order the listener hears it, the
/// current entry and its position, the modes and whether it was playing. Plain values: the catalog knows
/// nothing of the playback core that reads them back.
public struct SavedPlayState: Sendable, Equatable {
    /// One queue entry: the item, its place in the order the queue was given (shuffle keeps both), and the
    /// container it was queued from (shuffle by collections keeps a container's items together).
    public struct Entry: Sendable, Equatable {
        public var identifier: String
        public var originalIndex: Int
        public var container: String?

        public init(identifier: String, originalIndex: Int, container: String?) {
            self.identifier = identifier
            self.originalIndex = originalIndex
            self.container = container
        }
    }

    /// The queue in play order.
    public var entries: [Entry]
    /// The current entry's index in `entries`; nil when nothing is current.
    public var currentIndex: Int?
    public var elapsed: Double
    public var repeatMode: String
    public var shuffleMode: String
    public var rate: Double
    /// `playing`, `paused` or `stopped`, as the listener left it.
    public var state: String
    /// The containers the queue came from, root first (now playing's `nowPlayingIdentifiers`).
    public var context: [String]
    /// Seconds since the epoch.
    public var savedAt: Double

    public init(entries: [Entry], currentIndex: Int?, elapsed: Double, repeatMode: String, shuffleMode: String,
                rate: Double, state: String, context: [String], savedAt: Double) {
        self.entries = entries
        self.currentIndex = currentIndex
        self.elapsed = elapsed
        self.repeatMode = repeatMode
        self.shuffleMode = shuffleMode
        self.rate = rate
        self.state = state
        self.context = context
        self.savedAt = savedAt
    }
}

extension CatalogSchema {
    /// One row for where playback stands (rewritten on every save, so it stays one small write) and the
    /// queue's rows (rewritten only when the queue changes: a 10,000-entry queue is not written again for a
    /// position).
    static func registerPlayState(in migrator: inout DatabaseMigrator) {
        migrator.registerMigration("play state") { db in
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
                """)
        }
    }
}

extension CatalogDatabase {
    /// The play state an earlier run saved; nil when none was. A row that cannot be read is an error, for
    /// the caller to log and start stopped.
    public func savedPlayState() async throws -> SavedPlayState? {
        try await read { db in try PlayStateRows.read(db) }
    }

    /// Saves the play state in one transaction; the queue's rows only when `queueChanged`.
    public func savePlayState(_ saved: SavedPlayState, queueChanged: Bool) async throws {
        try await pool.write { db in try PlayStateRows.write(saved, queueChanged: queueChanged, in: db) }
    }

    /// Moves only the saved position (while playing, every progress interval).
    public func savePlayPosition(_ elapsed: Double, savedAt: Double) async throws {
        try await pool.write { db in try PlayStateRows.writePosition(elapsed, savedAt: savedAt, in: db) }
    }
}

/// The play state's rows, the same in the catalog file (where versions before the node state file kept
/// them) and in the node state file.
enum PlayStateRows {
    static func read(_ db: Database) throws -> SavedPlayState? {
        guard let row = try Row.fetchOne(db, sql: "SELECT * FROM play_state WHERE id = 1") else { return nil }
        // Decoded with checks: a damaged row is an error the caller logs, not a crash.
        let entries = try Row.fetchAll(db, sql: "SELECT identifier, originalIndex, container FROM play_queue ORDER BY playIndex")
            .map {
                SavedPlayState.Entry(
                    identifier: try $0.decode(atIndex: 0), originalIndex: try $0.decode(atIndex: 1),
                    container: try $0.decode(atIndex: 2))
            }
        let contextText: String = try row.decode(forColumn: "context")
        return SavedPlayState(
            entries: entries, currentIndex: try row.decode(forColumn: "currentIndex"),
            elapsed: try row.decode(forColumn: "elapsed"), repeatMode: try row.decode(forColumn: "repeatMode"),
            shuffleMode: try row.decode(forColumn: "shuffleMode"), rate: try row.decode(forColumn: "rate"),
            state: try row.decode(forColumn: "state"),
            context: contextText.split(separator: "\n", omittingEmptySubsequences: true).map(String.init),
            savedAt: try row.decode(forColumn: "savedAt"))
    }

    // Cached statements: a node writes these about once a second while commands come in, and preparing
    // them again each time (parse, authorize) cost more than the write in a rig of a thousand nodes.
    static func write(_ saved: SavedPlayState, queueChanged: Bool, in db: Database) throws {
        try db.cachedStatement(sql: """
            INSERT OR REPLACE INTO play_state
                (id, currentIndex, elapsed, repeatMode, shuffleMode, rate, state, context, savedAt)
            VALUES (1, ?, ?, ?, ?, ?, ?, ?, ?)
            """).execute(
            arguments: [saved.currentIndex, saved.elapsed, saved.repeatMode, saved.shuffleMode, saved.rate, saved.state,
                        saved.context.joined(separator: "\n"), saved.savedAt])
        guard queueChanged else { return }
        try db.cachedStatement(sql: "DELETE FROM play_queue").execute()
        let insert = try db.cachedStatement(sql: "INSERT INTO play_queue (playIndex, identifier, originalIndex, container) VALUES (?, ?, ?, ?)")
        for (index, entry) in saved.entries.enumerated() {
            try insert.execute(arguments: [index, entry.identifier, entry.originalIndex, entry.container])
        }
    }

    static func writePosition(_ elapsed: Double, savedAt: Double, in db: Database) throws {
        try db.cachedStatement(sql: "UPDATE play_state SET elapsed = ?, savedAt = ? WHERE id = 1")
            .execute(arguments: [elapsed, savedAt])
    }

    static func clear(in db: Database) throws {
        try db.execute(sql: "DELETE FROM play_state; DELETE FROM play_queue")
    }
}
