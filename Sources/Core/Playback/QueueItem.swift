/// One playable entry of the queue: enough for the core to load it and for now playing to name it.
///
/// The catalog fills in what it knows; anything the stream reports later arrives as `StreamTags`.
public struct QueueItem: Sendable, Hashable, Identifiable {
    /// The content identifier (S21), echoed in now playing and in events.
    public var identifier: String
    /// A file path or URL the audio engine can load.
    public var uri: String
    public var title: String?
    public var artist: String?
    public var albumTitle: String?
    /// Seconds, when the catalog knows it; live streams have none (S14).
    public var duration: Double?
    public var isLiveStream: Bool
    /// The container (album, podcast, station list) this item came from; shuffle by collections
    /// keeps each container's items together and in order.
    public var containerIdentifier: String?
    /// Where playback starts when the item is loaded, e.g. a resume point (S31); nil: the beginning.
    public var startPosition: Double?
    /// Anything else a front end wants carried along with the item.
    public var userInfo: [String: String]
    /// The item's chapters in order of start; empty when it has none.
    public var chapters: [Chapter]

    public var id: String { identifier }

    public init(
        identifier: String, uri: String, title: String? = nil, artist: String? = nil,
        albumTitle: String? = nil, duration: Double? = nil, isLiveStream: Bool = false,
        containerIdentifier: String? = nil, startPosition: Double? = nil, userInfo: [String: String] = [:],
        chapters: [Chapter] = []
    ) {
        self.identifier = identifier
        self.uri = uri
        self.title = title
        self.artist = artist
        self.albumTitle = albumTitle
        self.duration = isLiveStream ? nil : duration
        self.isLiveStream = isLiveStream
        self.containerIdentifier = containerIdentifier
        self.startPosition = startPosition
        self.userInfo = userInfo
        self.chapters = chapters
    }
}

/// What happens at the end of an item (topics.md `repeatType`, S10: always a target state, never a toggle).
public enum RepeatMode: String, Sendable, CaseIterable, Codable {
    /// Play to the end of the queue, then stop.
    case off
    /// Replay the current item at its natural end; nextTrack still moves on.
    case one
    /// Wrap to the first item after the last.
    case all
}

/// The order items play in (topics.md `shuffleType`).
public enum ShuffleMode: String, Sendable, CaseIterable, Codable {
    /// The order the queue was given in.
    case off
    /// Every item in a stable random order.
    case items
    /// Whole containers in a stable random order, each container's items in their own order.
    case collections
}

/// The queue as published on `P/queue` (identifiers in play order and where playback stands), with where
/// it came from in the content tree.
public struct QueueSummary: Sendable, Equatable {
    /// Identifiers in play order.
    public var identifiers: [String]
    /// Index of the current item in `identifiers` (counts from 0); nil when nothing is current.
    public var index: Int?
    public var repeatMode: RepeatMode
    public var shuffleMode: ShuffleMode
    /// The identifiers from the section down to the container the queue was made from (S31): now playing's
    /// identifier path is this and the item's own. Not on `P/queue`.
    public var context: [String]

    public init(identifiers: [String] = [], index: Int? = nil, repeatMode: RepeatMode = .off,
                shuffleMode: ShuffleMode = .off, context: [String] = []) {
        self.identifiers = identifiers
        self.index = index
        self.repeatMode = repeatMode
        self.shuffleMode = shuffleMode
        self.context = context
    }

    public var count: Int { identifiers.count }
}
