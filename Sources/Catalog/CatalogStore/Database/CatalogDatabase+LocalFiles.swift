import Foundation
import GRDB

// MARK: - What a local scan remembers per file, so unchanged files are not read again

extension CatalogDatabase {
    /// The local-scan records of a source, keyed by path.
    public func localFiles(of sourceIdentifier: String) async throws -> [String: LocalFileRecord] {
        try await read { db in
            var records: [String: LocalFileRecord] = [:]
            let chapters = try Self.chapterLists(db.cachedStatement(sql: """
                SELECT file.path, json_extract(entry.value, '$.startTime'), json_extract(entry.value, '$.title'), NULL
                FROM local_file AS file, json_each(file.chapters) AS entry
                WHERE file.sourceIdentifier = ? AND file.chapters IS NOT NULL ORDER BY file.path, entry.key
                """), arguments: [sourceIdentifier])
            let rows = try Row.fetchCursor(
                db.cachedStatement(sql: """
                    SELECT path, size, modified, title, artist, album, genre, year, trackNumber, discNumber, duration,
                        artworkKey, composer, trackCount, discCount, trackLoudness, albumLoudness, trackPeak, albumPeak
                    FROM local_file WHERE sourceIdentifier = ?
                    """),
                arguments: [sourceIdentifier])
            while let row = try rows.next() {
                let tags = AudioTags(
                    title: row[3], artist: row[4], album: row[5], genre: row[6], year: row[7], trackNumber: row[8],
                    discNumber: row[9], duration: row[10], composer: row[12], trackCount: row[13], discCount: row[14],
                    loudness: LoudnessTags.stored(track: row[15], album: row[16], trackPeak: row[17], albumPeak: row[18]),
                    chapters: chapters[row[0]]?.chapters)
                records[row[0]] = LocalFileRecord(
                    path: row[0], size: row[1], modified: row[2], tags: tags, artworkKey: row[11])
            }
            return records
        }
    }

    static func storeLocalFiles(_ files: [LocalFileRecord], for sourceID: String, in db: Database) throws {
        try db.execute(sql: "DELETE FROM local_file WHERE sourceIdentifier = ?", arguments: [sourceID])
        let insert = try DirectStatement(
            db,
            sql: """
                INSERT INTO local_file (sourceIdentifier, path, size, modified, title, artist, album, genre, year,
                    trackNumber, discNumber, duration, artworkKey, composer, trackCount, discCount, trackLoudness,
                    albumLoudness, trackPeak, albumPeak, chapters)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """)
        for file in files {
            let tags = file.tags
            insert.bind(1, sourceID)
            insert.bind(2, file.path)
            insert.bind(3, file.size)
            insert.bind(4, file.modified)
            insert.bind(5, tags.title)
            insert.bind(6, tags.artist)
            insert.bind(7, tags.album)
            insert.bind(8, tags.genre)
            insert.bind(9, tags.year)
            insert.bind(10, tags.trackNumber)
            insert.bind(11, tags.discNumber)
            insert.bind(12, tags.duration)
            insert.bind(13, file.artworkKey)
            insert.bind(14, tags.composer)
            insert.bind(15, tags.trackCount)
            insert.bind(16, tags.discCount)
            insert.bind(17, tags.loudness?.track)
            insert.bind(18, tags.loudness?.album)
            insert.bind(19, tags.loudness?.trackPeak)
            insert.bind(20, tags.loudness?.albumPeak)
            insert.bind(21, tags.chapters.map(Self.encodeChapters))
            try insert.run()
        }
        try storeTagLoudness(files, in: db)
    }
}
