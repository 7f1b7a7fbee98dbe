import ContentTree
import Foundation
import GRDB

// MARK: - Artwork blobs by content hash (the P/artwork/<key> payloads)

extension CatalogDatabase {
    /// The cached bytes for an artwork key, for publishing; nil if not cached.
    public func artwork(key: String) async throws -> ArtworkBlob? {
        try await read { db in
            try Row.fetchOne(db, sql: "SELECT mimeType, bytes FROM artwork WHERE key = ?", arguments: [key])
                .map { ArtworkBlob(key: key, mimeType: $0[0], data: $0[1]) }
        }
    }

    /// Caches artwork fetched later (S13) and points every item with that artwork URL at it; returns the
    /// containers whose listings changed so they can be republished.
    @discardableResult
    public func attachArtwork(_ blob: ArtworkBlob, toItemsWithArtworkURL url: String) async throws -> CatalogDiff {
        let diff = try await pool.write { db in
            try Self.insertArtwork(blob, in: db)
            let identifiers = try String.fetchAll(
                db, sql: "SELECT identifier FROM item WHERE artworkURL = ? AND coalesce(artworkKey, '') != ?",
                arguments: [url, blob.key])
            guard !identifiers.isEmpty else { return CatalogDiff() }
            try db.execute(
                sql: "UPDATE item SET artworkKey = ? WHERE artworkURL = ?", arguments: [blob.key, url])
            var changed = Set<String>()
            for identifier in identifiers {
                changed.insert(identifier)
                changed.formUnion(try String.fetchAll(
                    db, sql: "SELECT parent FROM child WHERE identifier = ?", arguments: [identifier]))
            }
            let containers = try String.fetchSet(
                db,
                sql: "SELECT identifier FROM item WHERE isContainer AND identifier IN (SELECT value FROM json_each(?))",
                arguments: [Self.jsonArray(changed)])
            return CatalogDiff(changedContainers: containers, updatedItems: identifiers.count)
        }
        broadcaster.publish(diff)
        return diff
    }

    /// Artwork URLs some item names but whose bytes are not cached yet, most referenced first.
    public func pendingArtworkURLs(limit: Int = 100) async throws -> [String] {
        try await read { db in
            try String.fetchAll(
                db,
                sql: """
                    SELECT artworkURL FROM item WHERE artworkURL IS NOT NULL AND artworkKey IS NULL
                    GROUP BY artworkURL ORDER BY count(*) DESC, artworkURL LIMIT ?
                    """,
                arguments: [max(0, limit)])
        }
    }

    static func insertArtwork(_ blob: ArtworkBlob, in db: Database) throws {
        let size = ImageSize.of(blob.data)
        try db.execute(
            sql: "INSERT OR IGNORE INTO artwork (key, mimeType, bytes, createdAt, width, height) VALUES (?, ?, ?, ?, ?, ?)",
            arguments: [blob.key, blob.mimeType, blob.data, Date().timeIntervalSince1970, size?.width, size?.height])
    }

    /// Drops artwork no item references any more.
    static func pruneArtwork(in db: Database) throws {
        try db.execute(sql: """
            DELETE FROM artwork WHERE key NOT IN (SELECT artworkKey FROM item WHERE artworkKey IS NOT NULL)
            """)
    }

    static func jsonArray(_ values: some Sequence<String>) -> String {
        let data = try? JSONSerialization.data(withJSONObject: Array(values))
        return data.map { String(decoding: $0, as: UTF8.self) } ?? "[]"
    }
}
