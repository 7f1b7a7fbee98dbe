/// How the core reads and annotates the catalog: browse from the local cache only (S26, S29), never the
/// network, so a head unit's request is answered at once even offline right after boot.
///
/// Children are addressed by container identifier and a dense position (0..<childCount): `offset` is the
/// position of the first child wanted, so paging is a keyset seek, not a scan. Implementations are safe to
/// call from any task.
public protocol ContentCatalog: Sendable {
    /// The item with this identifier, container or playable, with its current playback progress; nil if unknown.
    func item(identifier: String) async throws -> ContentItem?

    /// The playable item whose audio is at `uri` (a `file://` or stream URL); nil if none is.
    func item(uri: String) async throws -> ContentItem?

    /// The items with these identifiers that the catalog holds, by identifier: one read for many (a queue
    /// restored at start), where `item(identifier:)` in a loop would pay a read each.
    func items(identifiers: [String]) async throws -> [String: ContentItem]

    /// The chapters of a playable item, nil when it has none: pages of children leave them out, and a queue
    /// made from a page reads them here.
    func chapters(of identifier: String) async throws -> [ContentChapter]?

    /// How many children a container has; 0 for playables and unknown identifiers.
    func childCount(of containerIdentifier: String) async throws -> Int

    /// Up to `limit` children of a container, starting at position `offset`.
    func children(of containerIdentifier: String, offset: Int, limit: Int) async throws -> ContentPage

    /// Up to `limit` playable items and named containers (albums, artists, shows) whose title, artist,
    /// album or show name hold every word of `text` as a word prefix, case and accents aside; best first: a
    /// title equal to the text, then a title that holds every word, then the rest, each in catalog order.
    /// `total` counts every match. Text with no words matches nothing; no text breaks the query.
    func search(_ text: String, limit: Int) async throws -> SearchResults

    /// Remembers where playback of an item stopped, so it resumes there and shows progress (S31).
    func savePlaybackPosition(_ position: PlaybackPosition, for identifier: String) async throws

    /// Where playback of an item last stopped; nil if never played or cleared.
    func playbackPosition(for identifier: String) async throws -> PlaybackPosition?

    /// Sets or clears a like, dislike or bookmark (the feedback commands, S1); like and dislike exclude each other.
    func setFeedback(_ mark: FeedbackMark, active: Bool, for identifier: String) async throws

    /// Sets the rating of an item (nil clears it).
    func setRating(_ rating: Double?, for identifier: String) async throws

    /// The feedback state of an item (all false and no rating when never marked).
    func feedback(for identifier: String) async throws -> ItemFeedback

    /// Counts for `P/info`.
    func summary() async throws -> CatalogSummary

    /// Every committed catalog change, as it happens, so the tree layer republishes only what changed (S27).
    func changes() -> AsyncStream<CatalogDiff>
}

/// One page of a container's children.
public struct ContentPage: Sendable, Hashable {
    public var containerIdentifier: String
    /// The total number of children, not just this page's.
    public var childCount: Int
    /// The position of `items.first`.
    public var offset: Int
    public var items: [ContentItem]

    public init(containerIdentifier: String, childCount: Int, offset: Int, items: [ContentItem]) {
        self.containerIdentifier = containerIdentifier
        self.childCount = childCount
        self.offset = offset
        self.items = items
    }

    /// The offset of the next page, or nil when this page reaches the end.
    public var nextOffset: Int? {
        let end = offset + items.count
        return end < childCount && !items.isEmpty ? end : nil
    }
}

/// The best matches of a search, and how many there were in all.
public struct SearchResults: Sendable, Hashable {
    public var items: [ContentItem]
    /// Every match, before any limit cut the list.
    public var total: Int

    public init(items: [ContentItem], total: Int) {
        self.items = items
        self.total = total
    }
}

/// Counts for the node's info topic.
public struct CatalogSummary: Sendable, Hashable, Codable {
    public var sources: Int
    public var containers: Int
    public var playables: Int

    public init(sources: Int, containers: Int, playables: Int) {
        self.sources = sources
        self.containers = containers
        self.playables = playables
    }
}

extension ContentCatalog {
    /// Resolves an index path (S20) by walking positions from the root; nil when any step is out of range.
    /// The root itself resolves to a synthetic container with `rootIdentifier`.
    public func item(at indexPath: IndexPath) async throws -> ContentItem? {
        var current = ContentItem.container(ContentItem.rootIdentifier, title: "")
        for index in indexPath.indices {
            guard index >= 0, current.isContainer else { return nil }
            let page = try await children(of: current.identifier, offset: index, limit: 1)
            guard let next = page.items.first, page.offset == index else { return nil }
            current = next
        }
        return current
    }

    /// The first page (or any page) of the root: the sections.
    public func sections(limit: Int = 100) async throws -> ContentPage {
        try await children(of: ContentItem.rootIdentifier, offset: 0, limit: limit)
    }
}

extension ContentCatalog {
    public func chapters(of identifier: String) async throws -> [ContentChapter]? {
        try await item(identifier: identifier)?.chapters
    }

    /// A catalog that cannot look items up by location knows none there.
    public func item(uri: String) async throws -> ContentItem? { nil }

    public func items(identifiers: [String]) async throws -> [String: ContentItem] {
        var found: [String: ContentItem] = [:]
        for identifier in identifiers {
            if let item = try await item(identifier: identifier) { found[identifier] = item }
        }
        return found
    }
}
