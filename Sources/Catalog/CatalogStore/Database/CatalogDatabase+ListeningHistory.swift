import ContentTree
import Foundation
import GRDB

// MARK: - Recently Played and Favorites: child rows of two sections, listed from what played and the marks

extension CatalogDatabase {
    /// The two sections and their titles, in root order.
    static let listeningSections = [
        (ContentItem.Section.recent, "Recently Played"), (ContentItem.Section.favorites, "Favorites"),
    ]
    /// How many items Recently Played lists.
    public static let recentlyPlayedLimit = 25
    /// Plays remembered beyond those listed: when a refresh drops a listed item, older ones move up, and
    /// the item takes its place again when its source brings it back.
    static let recentPlaysKept = 100

    /// Puts an item at the head of Recently Played, and saves where it stood then unless a newer position
    /// is saved already (the list shows its progress from the first).
    public func recordPlay(of identifier: String, at time: Double, position: PlaybackPosition?) async throws {
        let diff = try await pool.write { db -> CatalogDiff in
            // Cached statements here and in `relist`: a node records a play a few seconds into every item.
            try db.cachedStatement(
                sql: """
                    INSERT INTO recent_play (identifier, playedAt) VALUES (?, ?)
                    ON CONFLICT(identifier) DO UPDATE SET playedAt = excluded.playedAt
                    """
            ).execute(arguments: [identifier, time])
            try db.cachedStatement(
                sql: """
                    DELETE FROM recent_play WHERE identifier NOT IN
                        (SELECT identifier FROM recent_play ORDER BY playedAt DESC LIMIT ?)
                    """
            ).execute(arguments: [Self.recentPlaysKept])
            var savedPosition = false
            if let position {
                try db.cachedStatement(
                    sql: """
                        INSERT INTO playback_position (identifier, elapsed, duration, updatedAt) VALUES (?, ?, ?, ?)
                        ON CONFLICT(identifier) DO UPDATE SET elapsed = excluded.elapsed,
                            duration = excluded.duration, updatedAt = excluded.updatedAt
                        WHERE excluded.updatedAt > playback_position.updatedAt
                        """
                ).execute(arguments: [identifier, max(0, position.elapsed), position.duration, position.updatedAt])
                savedPosition = db.changesCount > 0
            }
            var diff = try Self.relist(ContentItem.Section.recent, in: db)
            // Already first: the order stands, but the progress it shows moved.
            if savedPosition { diff.changedContainers.insert(ContentItem.Section.recent) }
            return diff
        }
        if !diff.isEmpty { broadcaster.publish(diff) }
    }

    /// Lists Favorites again from the marks, after a like, bookmark or unmark.
    public func listFavorites() async throws {
        let diff = try await pool.write { db in try Self.relist(ContentItem.Section.favorites, in: db) }
        if !diff.isEmpty { broadcaster.publish(diff) }
    }

    /// Lists both sections again: after a refresh added or removed items (an item gone drops out, one
    /// back returns, each under its current row). `itemsChanged`: some items' fields changed too, which the
    /// lists show, so both are republished where their documents differ.
    public func listListeningHistory(itemsChanged: Bool = false) async throws {
        // Every start lists both sections again; with nothing played or marked and neither section listing
        // anything, one read says so where the relisting compiled five statements in a write transaction.
        if !itemsChanged, try await read(Self.hasNothingToList) { return }
        let diff = try await pool.write { db -> CatalogDiff in
            var diff = CatalogDiff()
            for (section, _) in Self.listeningSections { diff.merge(try Self.relist(section, in: db)) }
            if itemsChanged { diff.changedContainers.formUnion(Self.listeningSections.map(\.0)) }
            return diff
        }
        if !diff.isEmpty { broadcaster.publish(diff) }
    }

    /// The identifiers a section lists now, in order.
    public func listed(in section: String) async throws -> [String] {
        try await read { db in
            try String.fetchAll(db, sql: "SELECT identifier FROM child WHERE parent = ? ORDER BY position", arguments: [section])
        }
    }

    // MARK: - Inside a transaction

    /// True when no play, like or bookmark is kept and neither section lists an item: relisting would
    /// leave both as they are.
    static func hasNothingToList(_ db: Database) throws -> Bool {
        try Bool.fetchOne(db, sql: """
            SELECT NOT EXISTS (SELECT 1 FROM recent_play)
                AND NOT EXISTS (SELECT 1 FROM feedback WHERE liked OR bookmarked)
                AND NOT EXISTS (SELECT 1 FROM child WHERE parent IN (?, ?))
            """, arguments: [ContentItem.Section.recent, ContentItem.Section.favorites]) ?? false
    }

    /// Rewrites a section's child rows from its source rows, keeping only playable items the catalog holds;
    /// an empty diff when the rows are already those.
    static func relist(_ section: String, in db: Database) throws -> CatalogDiff {
        let sql = switch section {
        case ContentItem.Section.recent:
            """
            SELECT item.identifier, item.rowid FROM recent_play JOIN item ON item.identifier = recent_play.identifier
            WHERE item.isPlayable ORDER BY recent_play.playedAt DESC, item.identifier LIMIT \(recentlyPlayedLimit)
            """
        default:
            // The newest of the item's marks decides its place.
            """
            SELECT item.identifier, item.rowid FROM feedback JOIN item ON item.identifier = feedback.identifier
            WHERE item.isPlayable AND (feedback.liked OR feedback.bookmarked)
            ORDER BY max(CASE WHEN feedback.liked THEN coalesce(feedback.likedAt, 0) ELSE 0 END,
                         CASE WHEN feedback.bookmarked THEN coalesce(feedback.bookmarkedAt, 0) ELSE 0 END) DESC,
                item.identifier
            """
        }
        let wanted = try Row.fetchAll(db.cachedStatement(sql: sql)).map { ($0[0] as String, $0[1] as Int64) }
        let current = try Row.fetchAll(
            db.cachedStatement(sql: "SELECT identifier, itemRowid FROM child WHERE parent = ? ORDER BY position"), arguments: [section])
            .map { ($0[0] as String, $0[1] as Int64?) }
        if current.map(\.0) == wanted.map(\.0), current.map(\.1) == wanted.map(\.1) { return CatalogDiff() }
        try db.cachedStatement(sql: "DELETE FROM child WHERE parent = ?").execute(arguments: [section])
        let insert = try ChildInsert(db)
        for (position, entry) in wanted.enumerated() {
            try insert.run(parent: section, position: position, child: entry.0, source: nil, rowid: entry.1)
        }
        try db.cachedStatement(sql: "UPDATE item SET childCount = ? WHERE identifier = ?").execute(arguments: [wanted.count, section])
        return CatalogDiff(changedContainers: [section])
    }
}
