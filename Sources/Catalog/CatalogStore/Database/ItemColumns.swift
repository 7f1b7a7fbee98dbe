import ContentTree
import GRDB
import GRDBSQLite

/// Reads the current row of a stepped statement straight from SQLite's column API: a page decodes 50 rows of
/// 25 columns, and GRDB's generic row decoding cost more than the query itself there.
struct ColumnReader {
    let statement: SQLiteStatement

    @inline(__always)
    func string(_ column: Int32) -> String? {
        // sqlite3_column_text gives NULL for a NULL column; read the length after the text, as SQLite asks.
        guard let text = sqlite3_column_text(statement, column) else { return nil }
        let count = Int(sqlite3_column_bytes(statement, column))
        return String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self)
    }

    @inline(__always)
    func int(_ column: Int32) -> Int? {
        sqlite3_column_type(statement, column) == SQLITE_NULL ? nil : Int(sqlite3_column_int64(statement, column))
    }

    @inline(__always)
    func double(_ column: Int32) -> Double? {
        sqlite3_column_type(statement, column) == SQLITE_NULL ? nil : sqlite3_column_double(statement, column)
    }

    @inline(__always)
    func bool(_ column: Int32) -> Bool { sqlite3_column_int64(statement, column) != 0 }

    @inline(__always)
    func isNull(_ column: Int32) -> Bool { sqlite3_column_type(statement, column) == SQLITE_NULL }
}

extension ContentItem {
    /// Reads the columns of `selection`, starting at column `first`.
    init(_ columns: ColumnReader, from first: Int32) {
        let c = first
        self.init(
            identifier: columns.string(c) ?? "", title: columns.string(c + 1) ?? "", subtitle: columns.string(c + 2),
            artworkKey: columns.string(c + 3), artworkURL: columns.string(c + 4), isContainer: columns.bool(c + 5),
            isPlayable: columns.bool(c + 6), isStreamingContent: columns.bool(c + 7),
            isExplicitContent: columns.bool(c + 8), displaysPlaybackProgress: columns.bool(c + 9),
            uri: columns.string(c + 10), artist: columns.string(c + 11), albumTitle: columns.string(c + 12),
            duration: columns.double(c + 13), trackNumber: columns.int(c + 14), trackCount: columns.int(c + 15),
            discNumber: columns.int(c + 16), discCount: columns.int(c + 17), genre: columns.string(c + 18),
            releaseDate: columns.string(c + 19), composer: columns.string(c + 20), summary: columns.string(c + 21),
            containerIdentifier: columns.string(c + 22))
        if let elapsed = columns.double(c + 23) {
            let position = PlaybackPosition(elapsed: elapsed, duration: columns.double(c + 24) ?? duration, updatedAt: 0)
            playbackProgress = position.progress
        }
        if let mimeType = columns.string(c + 25), let width = columns.int(c + 26), let height = columns.int(c + 27) {
            artworkFormat = ArtworkFormat(mimeType: mimeType, width: width, height: height)
        }
        if let status = columns.string(c + 28) { setDownload(status: status, progress: columns.double(c + 29)) }
        loudness = LoudnessTags.stored(
            track: columns.double(c + 30), album: columns.double(c + 31), trackPeak: columns.double(c + 32),
            albumPeak: columns.double(c + 33))
    }
}
