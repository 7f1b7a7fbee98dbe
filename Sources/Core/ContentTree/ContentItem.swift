/// One node of the browsable catalog, container or playable, carrying every field a head unit draws (S21)
/// plus the playable metadata now playing needs (S12), so one lookup serves both.
public struct ContentItem: Sendable, Hashable, Codable {
    /// Stable across refreshes: derived from the source and a stable key (file path, GUID, URL).
    public var identifier: String
    public var title: String
    public var subtitle: String?
    /// Content hash of cached artwork bytes (the `P/artwork/<key>` topic), nil until the bytes are cached.
    public var artworkKey: String?
    /// The type and size of the picture `artworkKey` names, as published; nil when it is not cached.
    public var artworkFormat: ArtworkFormat?
    /// Where artwork can be fetched from when it is not cached yet (S13: fetched off the hot path).
    public var artworkURL: String?
    /// -1 for none, else 0...1 (S31).
    public var playbackProgress: Double
    public var isContainer: Bool
    public var isPlayable: Bool
    public var isStreamingContent: Bool
    public var isExplicitContent: Bool
    /// For containers: whether their children show a progress bar (childItemsDisplayPlaybackProgress, S31).
    public var displaysPlaybackProgress: Bool

    // MARK: - Playable metadata

    /// What the audio engine plays: a file URL or a stream URL.
    public var uri: String?
    public var artist: String?
    public var albumTitle: String?
    /// Seconds; nil for live streams and unknown lengths.
    public var duration: Double?
    /// From 1.
    public var trackNumber: Int?
    public var trackCount: Int?
    /// From 1.
    public var discNumber: Int?
    public var discCount: Int?
    public var genre: String?
    /// Year or ISO 8601 date, as the source gave it.
    public var releaseDate: String?
    public var composer: String?
    /// A plain-text description (podcast show notes with HTML removed).
    public var summary: String?
    /// The item's natural container (an album for a track, the feed for an episode): the queue `playItem`
    /// builds when the item is reached by identifier alone.
    public var containerIdentifier: String?
    /// The local copy's state from the downloads' rows; nil when there is no row (see `shownDownloadStatus`).
    public var downloadStatus: DownloadStatus?
    /// 0...1 while downloading, when the size is known.
    public var downloadProgress: Double?
    /// Loudness from the item's tags or the node's measurement, once known (published as `loudness`).
    public var loudness: ContentLoudness?
    /// The item's chapters in order (an audiobook's, a long episode's), from its file or its feed; nil when it
    /// has none. Read with the item itself (`contentItem`, the queue), not with pages of the tree.
    public var chapters: [ContentChapter]?
    /// Where a feed says the chapters are (Podcasting 2.0 `podcast:chapters`), fetched with the feed.
    public var chaptersURL: String?

    public init(
        identifier: String, title: String, subtitle: String? = nil, artworkKey: String? = nil,
        artworkURL: String? = nil, playbackProgress: Double = -1, isContainer: Bool = false,
        isPlayable: Bool = false, isStreamingContent: Bool = false, isExplicitContent: Bool = false,
        displaysPlaybackProgress: Bool = false, uri: String? = nil, artist: String? = nil,
        albumTitle: String? = nil, duration: Double? = nil, trackNumber: Int? = nil, trackCount: Int? = nil,
        discNumber: Int? = nil, discCount: Int? = nil, genre: String? = nil, releaseDate: String? = nil,
        composer: String? = nil, summary: String? = nil, containerIdentifier: String? = nil,
        artworkFormat: ArtworkFormat? = nil
    ) {
        self.identifier = identifier
        self.title = title
        self.subtitle = subtitle
        self.artworkKey = artworkKey
        self.artworkFormat = artworkFormat
        self.artworkURL = artworkURL
        self.playbackProgress = playbackProgress
        self.isContainer = isContainer
        self.isPlayable = isPlayable
        self.isStreamingContent = isStreamingContent
        self.isExplicitContent = isExplicitContent
        self.displaysPlaybackProgress = displaysPlaybackProgress
        self.uri = uri
        self.artist = artist
        self.albumTitle = albumTitle
        self.duration = duration
        self.trackNumber = trackNumber
        self.trackCount = trackCount
        self.discNumber = discNumber
        self.discCount = discCount
        self.genre = genre
        self.releaseDate = releaseDate
        self.composer = composer
        self.summary = summary
        self.containerIdentifier = containerIdentifier
    }

    /// A browsable container (a section, an album, a podcast feed).
    public static func container(_ identifier: String, title: String, subtitle: String? = nil) -> ContentItem {
        ContentItem(identifier: identifier, title: title, subtitle: subtitle, isContainer: true)
    }
}

/// What a head unit needs to lay out a picture before fetching it (S21: "as in now playing").
public struct ArtworkFormat: Sendable, Hashable, Codable {
    public var mimeType: String
    public var width: Int
    public var height: Int

    public init(mimeType: String, width: Int, height: Int) {
        self.mimeType = mimeType
        self.width = width
        self.height = height
    }
}

extension ContentItem {
    /// The identifier of the catalog root (the empty index path); its children are the sections (S23).
    public static let rootIdentifier = "root"

    /// Well-known section containers under the root, so every source of a kind lands in the same tab.
    public enum Section {
        public static let library = "section:library"
        public static let podcasts = "section:podcasts"
        public static let radio = "section:radio"
        /// Local copies, newest finished first; made the first time the node downloads anything.
        public static let downloads = "section:downloads"
        /// What played for a while, most recent first; always there, from the catalog file's creation on.
        public static let recent = "section:recent"
        /// What the listener liked or bookmarked, newest mark first; always there, like `recent`.
        public static let favorites = "section:favorites"
    }
}
