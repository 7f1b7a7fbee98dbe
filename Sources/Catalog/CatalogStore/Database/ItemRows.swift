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
        progress.elapsed, progress.duration, picture.mimeType, picture.width, picture.height,
        download.status, download.progress, lufs.track, lufs.album, lufs.trackPeak, lufs.albumPeak
        """

    /// The joins `selection` needs after `FROM item`: the saved position, and the artwork's type and size.
    static let selectionJoins = """
        LEFT JOIN playback_position AS progress ON progress.identifier = item.identifier
        LEFT JOIN artwork AS picture ON picture.key = item.artworkKey
        LEFT JOIN download ON download.identifier = item.identifier
        LEFT JOIN loudness AS lufs ON lufs.uri = item.uri AND lufs.origin != 'none'
        """

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
        if let mimeType: String = row[25], let width: Int = row[26], let height: Int = row[27] {
            artworkFormat = ArtworkFormat(mimeType: mimeType, width: width, height: height)
        }
        if let status: String = row[28] { setDownload(status: status, progress: row[29]) }
    }

    /// A download row's status as the tree shows it: a deleted copy is simply not downloaded.
    mutating func setDownload(status: String, progress: Double?) {
        guard let status = DownloadStatus(rawValue: status), Self.isDownloadable(self) else { return }
        downloadStatus = status
        downloadProgress = status == .downloading ? progress : nil
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
    /// Progress is excluded: it lives in its own table. The bytes hashed are each field's text (numbers in
    /// decimal, flags as "0"/"1", nil as one zero byte) followed by a separator, fed without building strings.
    var storedDigest: String {
        var hash = FieldHash()
        hash.mix(title)
        hash.mix(subtitle)
        hash.mix(artworkKey)
        hash.mix(artworkURL)
        for flag in [isContainer, isPlayable, isStreamingContent, isExplicitContent, displaysPlaybackProgress] {
            hash.byte(flag ? 0x31 : 0x30)
        }
        hash.end()
        hash.mix(uri)
        hash.mix(artist)
        hash.mix(albumTitle)
        hash.mix(duration.map { "\($0)" })
        hash.mix(trackNumber)
        hash.mix(trackCount)
        hash.mix(discNumber)
        hash.mix(discCount)
        hash.mix(genre)
        hash.mix(releaseDate)
        hash.mix(composer)
        hash.mix(summary)
        hash.mix(containerIdentifier)
        // Only items that have them mix these in, so the digests of all others stay as stored before chapters.
        if let chapters, !chapters.isEmpty {
            hash.mix("chapters")
            for chapter in chapters {
                hash.mix(chapter.title)
                hash.mix("\(chapter.startTime)")
            }
        }
        if let chaptersURL { hash.mix("chaptersURL:" + chaptersURL) }
        return String(hash.value, radix: 16)
    }
}

/// FNV-1a over field texts, each closed by a separator byte.
struct FieldHash {
    private(set) var value: UInt64 = 0xcbf2_9ce4_8422_2325

    @inline(__always)
    mutating func byte(_ byte: UInt8) {
        value ^= UInt64(byte)
        value = value &* 0x100_0000_01b3
    }

    mutating func end() {
        value ^= 0x1f
        value = value &* 0x100_0000_01b3
    }

    mutating func mix(_ text: String?) {
        if let text {
            for byte in text.utf8 { self.byte(byte) }
        } else {
            byte(0)
        }
        end()
    }

    /// The decimal digits of `number`, as `"\(number)"` would spell them.
    mutating func mix(_ number: Int?) {
        guard let number else {
            byte(0)
            end()
            return
        }
        if number < 0 { byte(0x2d) }
        var magnitude = number.magnitude
        var divisor: UInt = 1
        while magnitude / divisor >= 10 { divisor *= 10 }
        while divisor > 0 {
            byte(UInt8(truncatingIfNeeded: magnitude / divisor) + 0x30)
            magnitude %= divisor
            divisor /= 10
        }
        end()
    }
}
