import ContentTree
import Foundation
import GRDB

// MARK: - Loudness: tags kept by the scan, measurements kept by the analyser, read at each load

extension CatalogDatabase {
    /// What is known of the loudness of the playable at `uri`, tags first; nil when nothing (yet).
    /// One indexed read on a browse connection: the controller asks at each load.
    public func loudness(ofURI uri: String) throws -> ContentLoudness? {
        try readNow { db in
            let statement = try db.cachedStatement(
                sql: "SELECT track, album, trackPeak, albumPeak FROM loudness WHERE uri = ? AND origin != 'none'")
            guard let row = try Row.fetchOne(statement, arguments: [uri]) else { return nil }
            return LoudnessTags.stored(track: row[0], album: row[1], trackPeak: row[2], albumPeak: row[3])
        }
    }

    /// Keeps the loudness tags of the files a scan listed, by the URI their items play, in the scan's
    /// transaction. A file without tags keeps a measurement made of it while it is unchanged (same size and
    /// modification time); a changed one loses it, so it is measured again.
    static func storeTagLoudness(_ files: [LocalFileRecord], in db: Database) throws {
        let tagged = try DirectStatement(db, sql: """
            INSERT OR REPLACE INTO loudness (uri, track, album, trackPeak, albumPeak, origin, size, modified)
            VALUES (?, ?, ?, ?, ?, 'tags', ?, ?)
            """)
        let untagged = try DirectStatement(db, sql: """
            DELETE FROM loudness WHERE uri = ?1 AND (origin = 'tags' OR size IS NOT ?2 OR modified IS NOT ?3)
            """)
        for file in files {
            let uri = URL(fileURLWithPath: file.path).absoluteString
            if let loudness = file.tags.loudness {
                tagged.bind(1, uri)
                tagged.bind(2, loudness.track)
                tagged.bind(3, loudness.album)
                tagged.bind(4, loudness.trackPeak)
                tagged.bind(5, loudness.albumPeak)
                tagged.bind(6, file.size)
                tagged.bind(7, file.modified)
                try tagged.run()
            } else {
                untagged.bind(1, uri)
                untagged.bind(2, file.size)
                untagged.bind(3, file.modified)
                try untagged.run()
            }
        }
    }
}
