import ContentTree
import Foundation
import GRDB

// MARK: - Playback progress and feedback marks, kept per identifier across refreshes

// Cached statements throughout: each is run at a pause, a seek or a play, and preparing one again (parse and
// GRDB's authorizer, which notes every column read) cost several times running it.

extension CatalogDatabase {
    public func savePlaybackPosition(_ position: PlaybackPosition, for identifier: String) async throws {
        try await pool.write { db in
            try db.cachedStatement(
                sql: """
                    INSERT INTO playback_position (identifier, elapsed, duration, updatedAt) VALUES (?, ?, ?, ?)
                    ON CONFLICT(identifier) DO UPDATE SET elapsed = excluded.elapsed,
                        duration = excluded.duration, updatedAt = excluded.updatedAt
                    """
            ).execute(arguments: [identifier, max(0, position.elapsed), position.duration, position.updatedAt])
        }
    }

    /// Saves several items' positions in one transaction. With `onlyNewer`, a position is left out where the
    /// one saved is as new or newer (the place a start carries over from the node state file). A position
    /// without a duration keeps the duration saved before.
    public func savePlaybackPositions(_ positions: [String: PlaybackPosition], onlyNewer: Bool = false) async throws {
        guard !positions.isEmpty else { return }
        try await pool.write { db in
            let upsert = try db.cachedStatement(sql: """
                INSERT INTO playback_position (identifier, elapsed, duration, updatedAt) VALUES (?, ?, ?, ?)
                ON CONFLICT(identifier) DO UPDATE SET elapsed = excluded.elapsed,
                    duration = coalesce(excluded.duration, playback_position.duration), updatedAt = excluded.updatedAt
                WHERE NOT ? OR excluded.updatedAt > playback_position.updatedAt
                """)
            for (identifier, position) in positions {
                try upsert.execute(arguments: [identifier, max(0, position.elapsed), position.duration, position.updatedAt, onlyNewer])
            }
        }
    }

    /// Forgets where an item stopped (played to the end and reset, or the user cleared it).
    public func clearPlaybackPosition(for identifier: String) async throws {
        try await pool.write { db in
            try db.cachedStatement(sql: "DELETE FROM playback_position WHERE identifier = ?").execute(arguments: [identifier])
        }
    }

    public func playbackPosition(for identifier: String) async throws -> PlaybackPosition? {
        try await read { db in
            try Row.fetchOne(
                db.cachedStatement(sql: "SELECT elapsed, duration, updatedAt FROM playback_position WHERE identifier = ?"),
                arguments: [identifier]
            ).map { PlaybackPosition(elapsed: $0[0], duration: $0[1], updatedAt: $0[2]) }
        }
    }

    public func setFeedback(_ mark: FeedbackMark, active: Bool, for identifier: String) async throws {
        try await pool.write { db in
            var feedback = try Self.feedback(identifier, in: db)
            feedback.set(mark, active: active)
            try Self.store(feedback, for: identifier, in: db)
        }
    }

    public func setRating(_ rating: Double?, for identifier: String) async throws {
        try await pool.write { db in
            var feedback = try Self.feedback(identifier, in: db)
            feedback.rating = rating
            try Self.store(feedback, for: identifier, in: db)
        }
    }

    public func feedback(for identifier: String) async throws -> ItemFeedback {
        try await read { db in try Self.feedback(identifier, in: db) }
    }

    /// Identifiers carrying a mark, most recently marked first (a "Bookmarks" or "Liked" list).
    public func identifiers(marked mark: FeedbackMark, limit: Int = 500) async throws -> [String] {
        let column = switch mark {
        case .like: "liked"
        case .dislike: "disliked"
        case .bookmark: "bookmarked"
        }
        return try await read { db in
            try String.fetchAll(
                db, sql: "SELECT identifier FROM feedback WHERE \(column) ORDER BY updatedAt DESC LIMIT ?",
                arguments: [limit])
        }
    }

    static func feedback(_ identifier: String, in db: Database) throws -> ItemFeedback {
        guard let row = try Row.fetchOne(
            db.cachedStatement(sql: "SELECT liked, disliked, bookmarked, rating FROM feedback WHERE identifier = ?"),
            arguments: [identifier])
        else { return ItemFeedback() }
        return ItemFeedback(liked: row[0], disliked: row[1], bookmarked: row[2], rating: row[3])
    }

    static func store(_ feedback: ItemFeedback, for identifier: String, in db: Database) throws {
        if feedback == ItemFeedback() {
            try db.cachedStatement(sql: "DELETE FROM feedback WHERE identifier = ?").execute(arguments: [identifier])
            return
        }
        // A mark keeps the time it was first made while it stays (a repeated like is a head unit's retry,
        // not a newer mark); taking it back forgets the time.
        try db.cachedStatement(
            sql: """
                INSERT INTO feedback (identifier, liked, disliked, bookmarked, rating, updatedAt, likedAt, bookmarkedAt)
                VALUES (?1, ?2, ?3, ?4, ?5, ?6, CASE WHEN ?2 THEN ?6 END, CASE WHEN ?4 THEN ?6 END)
                ON CONFLICT(identifier) DO UPDATE SET liked = excluded.liked, disliked = excluded.disliked,
                    bookmarked = excluded.bookmarked, rating = excluded.rating, updatedAt = excluded.updatedAt,
                    likedAt = CASE WHEN excluded.liked THEN coalesce(feedback.likedAt, excluded.likedAt) END,
                    bookmarkedAt = CASE WHEN excluded.bookmarked THEN coalesce(feedback.bookmarkedAt, excluded.bookmarkedAt) END
                """
        ).execute(
            arguments: [
                identifier, feedback.liked, feedback.disliked, feedback.bookmarked, feedback.rating,
                Date().timeIntervalSince1970,
            ])
    }
}
