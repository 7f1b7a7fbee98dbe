import CatalogStore

/// How often and how hard the catalog service refreshes its sources.
public struct CatalogRefreshSettings: Sendable {
    /// Between refreshes of a remote catalog (podcast feed, radio list, JSON catalog).
    public var remoteInterval: Duration
    /// Between rescans of the local library folders.
    public var localInterval: Duration
    /// Retries, backoff, timeouts and the checks that keep bad data out.
    public var policy: RefreshPolicy
    public var fetchLimits: HTTPFetchLimits
    /// Fetch the artwork remote catalogs point at, after each refresh that changed something.
    public var downloadsArtwork: Bool

    public init(
        remoteInterval: Duration = .seconds(30 * 60), localInterval: Duration = .seconds(5 * 60),
        policy: RefreshPolicy = RefreshPolicy(), fetchLimits: HTTPFetchLimits = HTTPFetchLimits(),
        downloadsArtwork: Bool = true
    ) {
        self.remoteInterval = remoteInterval
        self.localInterval = localInterval
        self.policy = policy
        self.fetchLimits = fetchLimits
        self.downloadsArtwork = downloadsArtwork
    }
}
