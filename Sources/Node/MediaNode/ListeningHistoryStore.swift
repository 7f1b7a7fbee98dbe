import CatalogStore
import ContentTree
import Playback

/// Where the listening history keeps what played and lists its two sections (the catalog file).
public protocol ListeningHistoryStore: Sendable {
    /// Puts an item first in Recently Played, saving where it stood then unless a newer position is saved.
    func recordPlay(of identifier: String, at time: Double, position: PlaybackPosition?) async throws
    /// Lists Favorites again from the marks.
    func listFavorites() async throws
    /// Lists both sections again after the catalog changed under them; `itemsChanged`: fields they show may
    /// have changed too.
    func listListeningHistory(itemsChanged: Bool) async throws
    /// Every committed catalog change, to follow the sources' refreshes.
    func changes() -> AsyncStream<CatalogDiff>
}

extension CatalogDatabase: ListeningHistoryStore {}
