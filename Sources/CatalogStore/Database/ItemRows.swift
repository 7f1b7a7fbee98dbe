import ContentTree
import GRDB

/// Mapping between `ContentItem` and `item` rows, by column position for speed on large pages.
extension ContentItem {
    /// The select list that `init(itemRow:)` reads, with the progress columns joined last.
    static let selection = """
        item.identifier, item.title, item.subtitle, item.artworkKey, item.artworkURL, item.isContainer,
        item.isPlayable, item.isStreamingContent, item.isExplicitContent, item.displaysPlaybackProgress, item.uri,
        item.artist, item.albumTitle, item.duration, item.trackNumber, item.trackCount, item.discNumber,
        item.discCount, item.genre, item.releaseDate, item.composer, item.summary, item.containerIdentifier,
        progress.elapsed, progress.duration
        """

    /// The joins `selection` needs after `FROM item`.
    static let progressJoin = "LEFT JOIN playback_position AS progress ON progress.identifier = item.identifier"

    init(itemRow row: Row) {
        self.init(
            identifier: row[0], title: row[1], subtitle: row[2], artworkKey: row[3], artworkURL: row[4],
            isContainer: row[5], isPlayable: row[6], isStreamingContent: row[7], isExplicitContent: row[8],
            displaysPlaybackProgress: row[9], uri: row[10], artist: row[11], albumTitle: row[12], duration: row[13],
            trackNumber: row[14], trackCount: row[15], discNumber: row[16], discCount: row[17], genre: row[18],
            releaseDate: row[19], composer: row[20], summary: row[21], containerIdentifier: row[22])
        if let elapsed: Double = row[23] {
            let position = PlaybackPosition(elapsed: elapsed, duration: row[24] ?? duration, updatedAt: 0)
            playbackProgress = position.progress
        }
    }

    /// Arguments for an insert of `CatalogSchema.itemColumns`.
    func rowArguments(source: String?, digest: String) -> StatementArguments {
        [
            identifier, source, title, subtitle, artworkKey, artworkURL, isContainer, isPlayable,
            isStreamingContent, isExplicitContent, displaysPlaybackProgress, uri, artist, albumTitle, duration,
            trackNumber, trackCount, discNumber, discCount, genre, releaseDate, composer, summary,
            containerIdentifier, digest,
        ]
    }

    /// A stable fingerprint of the stored fields (FNV-1a, 64 bits): equal digests mean nothing to republish.
    /// Progress is excluded: it lives in its own table.
    var storedDigest: String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        func mix(_ text: String?) {
            for byte in (text ?? "\u{0}").utf8 {
                hash ^= UInt64(byte)
                hash = hash &* 0x100_0000_01b3
            }
            hash ^= 0x1f
            hash = hash &* 0x100_0000_01b3
        }
        func number<T>(_ value: T?) -> String? { value.map { "\($0)" } }
        let flags = [isContainer, isPlayable, isStreamingContent, isExplicitContent, displaysPlaybackProgress]
            .map { $0 ? "1" : "0" }.joined()
        for field in [
            title, subtitle, artworkKey, artworkURL, flags, uri, artist, albumTitle, number(duration),
            number(trackNumber), number(trackCount), number(discNumber), number(discCount), genre, releaseDate,
            composer, summary, containerIdentifier,
        ] { mix(field) }
        return String(hash, radix: 16)
    }
}
