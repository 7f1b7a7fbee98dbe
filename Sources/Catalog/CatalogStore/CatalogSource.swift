import ContentTree

/// One place the catalog comes from (a music folder set, a podcast feed, a radio list, a JSON catalog);
/// its content is replaced as a whole on each refresh, in one transaction.
public struct CatalogSource: Sendable, Hashable, Codable {
    public enum Kind: String, Sendable, Hashable, Codable, CaseIterable {
        case local, podcast, radio, json

        /// The section a source of this kind appears under unless told otherwise (S23).
        public var defaultMount: String {
            switch self {
            case .local: ContentItem.Section.library
            case .podcast: ContentItem.Section.podcasts
            case .radio: ContentItem.Section.radio
            case .json: ContentItem.rootIdentifier
            }
        }
    }

    /// Stable: derived from kind and location, so re-adding the same feed finds its old state.
    public var identifier: String
    public var kind: Kind
    /// A URL, or for local sources the directories joined by newlines.
    public var location: String
    /// The container this source's top-level nodes are children of (a section, or the root).
    public var mount: String
    /// Order among the sources sharing a mount (lower first; ties by identifier).
    public var rank: Int

    public init(kind: Kind, location: String, mount: String? = nil, rank: Int = 0) {
        self.identifier = StableIdentifier.make(kind.rawValue, key: location)
        self.kind = kind
        self.location = location
        self.mount = mount ?? kind.defaultMount
        self.rank = rank
    }
}

/// Per-source bookkeeping that makes refreshes cheap (conditional GET) and failures visible.
public struct SourceSyncState: Sendable, Hashable, Codable {
    public var etag: String?
    public var lastModified: String?
    /// SHA-256 of the last accepted body: an identical body is not re-imported.
    public var contentHash: String?
    public var lastAttemptAt: Double?
    public var lastSuccessAt: Double?
    public var lastError: String?
    public var lastErrorAt: Double?
    public var consecutiveFailures: Int

    public init(
        etag: String? = nil, lastModified: String? = nil, contentHash: String? = nil, lastAttemptAt: Double? = nil,
        lastSuccessAt: Double? = nil, lastError: String? = nil, lastErrorAt: Double? = nil,
        consecutiveFailures: Int = 0
    ) {
        self.etag = etag
        self.lastModified = lastModified
        self.contentHash = contentHash
        self.lastAttemptAt = lastAttemptAt
        self.lastSuccessAt = lastSuccessAt
        self.lastError = lastError
        self.lastErrorAt = lastErrorAt
        self.consecutiveFailures = consecutiveFailures
    }
}
