import Artwork
import ContentTree
import Foundation

/// The complete content of one source as a provider produced it; the store swaps it in atomically.
///
/// A graph, not a tree: one item may be listed in several containers (a track under its artist, its album,
/// Songs and its genre). Top-level nodes become children of the source's mount.
public struct CatalogSnapshot: Sendable {
    public private(set) var items: [String: ContentItem] = [:]
    /// Identifiers in insertion order, for deterministic writes.
    public private(set) var order: [String] = []
    /// Ordered children per container identifier, top-level nodes under `topLevelKey`.
    public private(set) var children: [String: [String]] = [:]
    /// Artwork bytes the items reference by `artworkKey`.
    public var artwork: [String: ArtworkBlob] = [:]
    /// For local sources: the scan state persisted with the content; nil leaves the stored state alone.
    public var localFiles: [LocalFileRecord]?
    /// A display title for the source (feed title), if the content names itself.
    public var title: String?
    /// What the provider found wrong but left out rather than refuse the content for it (bad chapter data),
    /// one line each, for the refresher to log.
    public var problems: [String] = []

    /// The key under which top-level nodes are listed in `children`.
    public static let topLevelKey = ""

    public init(title: String? = nil) { self.title = title }

    public var count: Int { order.count }
    public var topLevel: [String] { children[Self.topLevelKey] ?? [] }

    /// Adds an item (or replaces its fields) and lists it last under `parent` (nil: top level).
    /// A playable's `containerIdentifier` defaults to the first container it is added under.
    public mutating func add(_ item: ContentItem, under parent: String? = nil) {
        var item = item
        if let existing = items[item.identifier] {
            if item.containerIdentifier == nil { item.containerIdentifier = existing.containerIdentifier }
        } else {
            order.append(item.identifier)
            if item.containerIdentifier == nil, !item.isContainer { item.containerIdentifier = parent }
        }
        items[item.identifier] = item
        children[parent ?? Self.topLevelKey, default: []].append(item.identifier)
    }

    /// Changes the fields of an already added item without listing it again.
    public mutating func update(_ item: ContentItem) {
        precondition(items[item.identifier] != nil, "update of an unknown item \(item.identifier)")
        items[item.identifier] = item
    }

    /// Lists an already added item under one more container.
    public mutating func link(_ identifier: String, under parent: String) {
        precondition(items[identifier] != nil, "link of an unknown item \(identifier)")
        children[parent, default: []].append(identifier)
    }

    /// Adds artwork bytes and returns their content key.
    @discardableResult
    public mutating func addArtwork(_ blob: ArtworkBlob) -> String {
        artwork[blob.key] = blob
        return blob.key
    }
}

/// Image bytes keyed by content hash, so identical covers are stored and published once.
public struct ArtworkBlob: Sendable, Hashable {
    public var key: String
    public var mimeType: String
    public var data: Data

    public init(data: Data, mimeType: String? = nil) {
        self.key = SHA256.hex(data)
        self.data = data
        self.mimeType = mimeType ?? Self.sniffMimeType(data)
    }

    init(key: String, mimeType: String, data: Data) {
        self.key = key
        self.mimeType = mimeType
        self.data = data
    }

    /// The contract's largest picture: anything bigger is scaled down before it is cached.
    public static let maximumBytes = 256 * 1024

    /// The largest side of a cached picture: the node's default `--artwork-size`.
    public static let maximumDimension = 600

    /// A JPEG or PNG as the node may publish it: as it is when within `maximumBytes` and
    /// `maximumDimension` pixels, else re-encoded as a JPEG scaled to fit them. Done once, when the picture
    /// is cached (at the scan, or when it is downloaded), so that now playing and the tree publish the
    /// cached bytes as they are, on one topic, the same for both, and a play waits for no scaling. Nil for
    /// anything else, or a picture that cannot be decoded.
    public static func publishable(_ data: Data) -> ArtworkBlob? {
        let isJPEGOrPNG = data.starts(with: [0xFF, 0xD8, 0xFF]) || data.starts(with: [0x89, 0x50, 0x4E, 0x47])
        guard isJPEGOrPNG else { return nil }
        if data.count <= maximumBytes, let size = ImageSize.of(data), max(size.width, size.height) <= maximumDimension {
            return ArtworkBlob(data: data)
        }
        let processor = ArtworkProcessor(maximumDimension: maximumDimension, maximumBytes: maximumBytes)
        guard let scaled = try? processor.process([UInt8](data)) else { return nil }
        return ArtworkBlob(data: Data(scaled.bytes), mimeType: scaled.mimeType)
    }

    /// JPEG or PNG from the magic bytes (the contract allows only those two).
    public static func sniffMimeType(_ data: Data) -> String {
        data.starts(with: [0x89, 0x50, 0x4E, 0x47]) ? "image/png" : "image/jpeg"
    }
}

/// What a local scan remembers about one file, so an unchanged file is not read again.
public struct LocalFileRecord: Sendable, Hashable, Codable {
    public var path: String
    public var size: Int64
    /// Seconds since the epoch.
    public var modified: Double
    public var tags: AudioTags
    /// The content key of the stored bytes of a cover image, or of an audio file's embedded picture, so an
    /// unchanged file's picture is not read again.
    public var artworkKey: String?

    public init(path: String, size: Int64, modified: Double, tags: AudioTags = AudioTags(), artworkKey: String? = nil) {
        self.path = path
        self.size = size
        self.modified = modified
        self.tags = tags
        self.artworkKey = artworkKey
    }
}

/// The tags and length of an audio file as read from its headers.
public struct AudioTags: Sendable, Hashable, Codable {
    public var title: String?
    public var artist: String?
    public var album: String?
    public var genre: String?
    public var year: Int?
    public var trackNumber: Int?
    public var discNumber: Int?
    /// Seconds; nil when unknown.
    public var duration: Double?
    public var composer: String?
    /// How many tracks and discs the release has, as the file's tag says.
    public var trackCount: Int?
    public var discCount: Int?
    /// From ReplayGain or R128 tags, when the file carries plausible ones.
    public var loudness: ContentLoudness?
    /// The file's chapters (checked: see `ContentChapter.validated`); nil when it has none.
    public var chapters: [ContentChapter]?

    public init(
        title: String? = nil, artist: String? = nil, album: String? = nil, genre: String? = nil,
        year: Int? = nil, trackNumber: Int? = nil, discNumber: Int? = nil, duration: Double? = nil,
        composer: String? = nil, trackCount: Int? = nil, discCount: Int? = nil, loudness: ContentLoudness? = nil,
        chapters: [ContentChapter]? = nil
    ) {
        self.title = title
        self.artist = artist
        self.album = album
        self.genre = genre
        self.year = year
        self.trackNumber = trackNumber
        self.discNumber = discNumber
        self.duration = duration
        self.composer = composer
        self.trackCount = trackCount
        self.discCount = discCount
        self.loudness = loudness
        self.chapters = chapters
    }
}
