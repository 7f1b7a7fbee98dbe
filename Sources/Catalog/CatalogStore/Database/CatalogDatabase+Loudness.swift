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
            let uri = LocalPath.fileURI(of: file.path)
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

// MARK: - Measurements, for the items whose files carry no loudness tags

/// A local file the analyser has yet to measure.
public struct UnmeasuredFile: Sendable, Equatable {
    public var uri: String
    /// What the meter opens: the path, or for a name that is not UTF-8 the URI (see `LocalPath`).
    public var path: String
    /// Seconds, as the scan found; nil when unknown.
    public var duration: Double?

    public init(uri: String, path: String, duration: Double?) {
        self.uri = uri
        self.path = path
        self.duration = duration
    }
}

/// What the analyser found for one file.
public enum StoredMeasurement: Sendable, Equatable {
    case loudness(Double, peak: Double)
    /// Silent, unreadable or too long: kept, so the file is not measured again while it is unchanged.
    case none
}

extension CatalogDatabase {
    /// Local playables with no loudness row yet, in catalog order, at most `limit`.
    public func unmeasuredFiles(limit: Int) async throws -> [UnmeasuredFile] {
        try await read { db in
            let rows = try Row.fetchAll(db, sql: """
                SELECT item.uri, min(item.duration) FROM item LEFT JOIN loudness ON loudness.uri = item.uri
                WHERE item.isPlayable AND item.uri LIKE 'file:%' AND loudness.uri IS NULL
                GROUP BY item.uri ORDER BY min(item.rowid) LIMIT ?
                """, arguments: [limit])
            return rows.compactMap { row in
                let uri: String = row[0]
                guard let path = LocalPath.path(fromFileURI: uri), !path.isEmpty else { return nil }
                // The meter opens a path or a URI; a name that is not UTF-8 reaches it by its URI's bytes.
                return UnmeasuredFile(uri: uri, path: LocalPath.isPlain(path) ? path : uri, duration: row[1])
            }
        }
    }

    /// Keeps measurements, each with the file's size and modification time now (a later change to the file
    /// drops the row at the next scan, so it is measured again), and returns the containers listing the
    /// measured items, whose published pages now show their `loudness`.
    public func storeMeasurements(_ measurements: [(uri: String, result: StoredMeasurement)]) async throws -> Set<String> {
        try await pool.write { db in
            let insert = try DirectStatement(db, sql: """
                INSERT OR REPLACE INTO loudness (uri, track, trackPeak, origin, size, modified)
                VALUES (?, ?, ?, ?, ?, ?)
                """)
            var containers = Set<String>()
            for (uri, result) in measurements {
                // Stamped as the scan stamps a file, so its comparison at the next scan is exact.
                var info = stat()
                let known = LocalPath.withCString(LocalPath.path(fromFileURI: uri) ?? "") { stat($0, &info) } == 0
                insert.bind(1, uri)
                switch result {
                case let .loudness(value, peak):
                    insert.bind(2, value)
                    insert.bind(3, peak > 0 ? peak : nil)
                    insert.bind(4, "measured")
                case .none:
                    insert.bind(2, nil as Double?)
                    insert.bind(3, nil as Double?)
                    insert.bind(4, "none")
                }
                insert.bind(5, known ? Int64(info.st_size) : nil)
                insert.bind(6, known ? LocalFolderProvider.modificationTime(info) : nil)
                try insert.run()
                guard case .loudness = result else { continue }
                let parents = try String.fetchAll(db, sql: """
                    SELECT DISTINCT child.parent FROM child JOIN item ON item.rowid = child.itemRowid WHERE item.uri = ?
                    """, arguments: [uri])
                containers.formUnion(parents)
            }
            return containers
        }
    }
}

extension CatalogDatabase {
    /// Which of `uris` have a loudness row (measured, tagged or found to have none).
    public func loudnessRows(among uris: [String]) async throws -> Set<String> {
        guard !uris.isEmpty else { return [] }
        return try await read { db in
            var known = Set<String>()
            let statement = try db.cachedStatement(sql: "SELECT uri FROM loudness WHERE uri = ?")
            for uri in uris where try String.fetchOne(statement, arguments: [uri]) != nil { known.insert(uri) }
            return known
        }
    }
}
