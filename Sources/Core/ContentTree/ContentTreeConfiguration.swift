import Foundation

/// How much of the tree the node publishes unasked, and how it names artwork topics.
public struct ContentTreeConfiguration: Sendable {
    /// Levels below the root published at start (2: the root, its sections and their children).
    public var publishedDepth: Int
    /// Children per published node unless a browse asks for another page size.
    public var pageSize: Int
    /// The largest page a browse may ask for.
    public var maximumPageSize: Int
    /// How many containers of a browsed page are prefetched (S28).
    public var prefetchedContainers: Int
    /// The topic of an artwork key (`P/artwork/<key>`), for the items' `artwork` reference.
    public var artworkTopic: @Sendable (String) -> String
    /// Milliseconds since the epoch; versions start from it so a restarted node never goes backwards.
    public var clock: @Sendable () -> Int

    public init(
        publishedDepth: Int = 2, pageSize: Int = 100, maximumPageSize: Int = 500, prefetchedContainers: Int = 20,
        artworkTopic: @escaping @Sendable (String) -> String = { "artwork/\($0)" },
        clock: @escaping @Sendable () -> Int = { Int(Date().timeIntervalSince1970 * 1000) }
    ) {
        self.publishedDepth = max(0, publishedDepth)
        self.pageSize = max(1, pageSize)
        self.maximumPageSize = max(self.pageSize, maximumPageSize)
        self.prefetchedContainers = max(0, prefetchedContainers)
        self.artworkTopic = artworkTopic
        self.clock = clock
    }
}

/// Why the root has nothing to show; its status item says so (S25).
public enum EmptyRootReason: String, Sendable, CaseIterable {
    /// No music and no catalog: local media is missing.
    case noMedia
    /// Sources are configured but their first refresh has not finished.
    case loading
    /// Sources are configured, the network is down and nothing was saved before.
    case offline

    public var title: String {
        switch self {
        case .noMedia: "Connect a USB drive"
        case .loading: "Loading…"
        case .offline: "Offline — no saved items yet"
        }
    }

    public var subtitle: String {
        switch self {
        case .noMedia: "No music found on this device"
        case .loading: "Your catalog is being fetched"
        case .offline: "Saved items show here once the network is back"
        }
    }

    /// The status item: neither playable nor a container, so a head unit shows it as a plain row.
    public var item: ContentItem {
        ContentItem(identifier: "status:\(rawValue)", title: title, subtitle: subtitle)
    }

    /// The status item of an empty section: Recently Played, Favorites and Downloads fill from what the
    /// listener does, so "connect a USB drive" would send them looking for the wrong thing.
    public func item(inSection section: String) -> ContentItem {
        guard self == .noMedia else { return item }
        let words: (String, String)? = switch section {
        case ContentItem.Section.recent: ("Nothing played yet", "What you listen to shows here")
        case ContentItem.Section.favorites: ("No favorites yet", "Items you like or bookmark show here")
        case ContentItem.Section.downloads: ("No downloads yet", "Episodes you download play here offline")
        default: nil
        }
        guard let (title, subtitle) = words else { return item }
        return ContentItem(identifier: "status:\(rawValue)", title: title, subtitle: subtitle)
    }
}
