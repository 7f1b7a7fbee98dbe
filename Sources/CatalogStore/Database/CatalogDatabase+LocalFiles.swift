import Foundation
import GRDB

// MARK: - What a local scan remembers per file, so unchanged files are not read again

extension CatalogDatabase {
    /// The local-scan records of a source, keyed by path.
    public func localFiles(of sourceIdentifier: String) async throws -> [String: LocalFileRecord] {
        try await pool.read { db in
            var records: [String: LocalFileRecord] = [:]
            let rows = try Row.fetchCursor(
                db.cachedStatement(sql: """
                    SELECT path, size, modified, title, artist, album, genre, year, trackNumber, discNumber, duration,
                        artworkKey
                    FROM local_file WHERE sourceIdentifier = ?
                    """),
                arguments: [sourceIdentifier])
            while let row = try rows.next() {
                let tags = AudioTags(
                    title: row[3], artist: row[4], album: row[5], genre: row[6], year: row[7], trackNumber: row[8],
                    discNumber: row[9], duration: row[10])
                records[row[0]] = LocalFileRecord(
                    path: row[0], size: row[1], modified: row[2], tags: tags, artworkKey: row[11])
            }
            return records
        }
    }

    static func storeLocalFiles(_ files: [LocalFileRecord], for sourceID: String, in db: Database) throws {
        try db.execute(sql: "DELETE FROM local_file WHERE sourceIdentifier = ?", arguments: [sourceID])
        let insert = try db.cachedStatement(
            sql: """
                INSERT INTO local_file (sourceIdentifier, path, size, modified, title, artist, album, genre, year,
                    trackNumber, discNumber, duration, artworkKey)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """)
        for file in files {
            let tags = file.tags
            try insert.execute(arguments: [
                sourceID, file.path, file.size, file.modified, tags.title, tags.artist, tags.album, tags.genre,
                tags.year, tags.trackNumber, tags.discNumber, tags.duration, file.artworkKey,
            ])
        }
    }
}
