import CatalogStore
import ContentTree
import Downloads
import NowPlaying
import Playback

/// Turns catalog items into the queue items the controller plays: the content commands and the resume
/// store make them the same way, a downloaded copy in place of the network.
struct QueueItemMaker: Sendable {
    let catalog: (any ContentCatalog)?
    let downloads: DownloadManager?

    /// A catalog item as the controller plays it; `resume` starts it where it was left (S31): at `heldAt` when
    /// the controller holds it paused there (newer than anything saved), else where the catalog says.
    func queueItem(_ item: ContentItem, container: String?, resume: Bool, heldAt: PlaybackPosition? = nil) async throws -> QueueItem {
        let isLive = item.isStreamingContent && item.duration == nil
        var start: Double?
        var saved = heldAt
        if resume, !isLive, saved == nil { saved = try await catalog?.playbackPosition(for: item.identifier) }
        if resume, !isLive, let saved, saved.elapsed >= 1 {
            let duration = saved.duration ?? item.duration
            // A finished item starts over.
            if duration.map({ saved.elapsed < $0 - 5 }) ?? true { start = saved.elapsed }
        }
        var info = Self.nowPlayingUserInfo(item)
        if let key = item.artworkKey { info[Self.artworkKeyInfo] = key }
        if item.artworkKey != nil, let format = item.artworkFormat {
            info[Self.artworkMimeTypeInfo] = format.mimeType
            info[Self.artworkSizeInfo] = "\(format.width)x\(format.height)"
        }
        // An item read from a page comes without its chapters: one keyed read each.
        var chapters = item.chapters
        if chapters == nil, !isLive { chapters = try await catalog?.chapters(of: item.identifier) }
        return QueueItem(
            identifier: item.identifier, uri: playableURI(of: item), title: item.title, artist: item.artist,
            albumTitle: item.albumTitle, duration: item.duration, isLiveStream: isLive,
            containerIdentifier: container, startPosition: start, userInfo: info,
            chapters: (chapters ?? []).map { QueueItem.Chapter(title: $0.title, startTime: $0.startTime) })
    }

    /// The `userInfo` key of the catalog's key for the item's cached picture: now playing names that picture
    /// in the item's first message, without reading the catalog.
    static let artworkKeyInfo = "artworkKey"
    /// The type and the size (`WxH`) of that picture as the catalog keeps it: enough for now playing to name
    /// it in the item's first message, before any byte of it is read.
    static let artworkMimeTypeInfo = "artworkMimeType"
    static let artworkSizeInfo = "artworkSize"

    /// The items named that the catalog still holds playable, each as played from its container, by
    /// identifier; one catalog read for all of them.
    func queueItems(_ entries: [(identifier: String, container: String?)]) async throws -> [String: QueueItem] {
        guard let catalog else { return [:] }
        let found = try await catalog.items(identifiers: entries.map(\.identifier))
        var made: [String: QueueItem] = [:]
        for entry in entries {
            guard let item = found[entry.identifier], item.isPlayable, item.uri != nil else { continue }
            made[entry.identifier] = try await queueItem(item, container: entry.container, resume: false)
        }
        return made
    }

    /// Where the item plays from: its downloaded copy when there is one (offline listening), else its URI.
    func playableURI(of item: ContentItem) -> String {
        downloads?.localFile(for: item.identifier)?.absoluteString ?? item.uri ?? ""
    }

    /// The catalog's now-playing keys a queue item has no field for (`NowPlayingMetadata.UserInfoKey`):
    /// without them a stream's tags could not be merged with them, and a radio station's genre would vanish.
    static func nowPlayingUserInfo(_ item: ContentItem) -> [String: String] {
        NowPlayingMetadata(
            genre: item.genre, releaseDate: item.releaseDate, composer: item.composer, albumTrackNumber: item.trackNumber,
            albumTrackCount: item.trackCount, discNumber: item.discNumber, discCount: item.discCount
        ).userInfo
    }
}
