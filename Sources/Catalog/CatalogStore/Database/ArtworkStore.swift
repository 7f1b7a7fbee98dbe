import ContentTree
import Foundation

/// Pictures kept by content key, as the node publishes them: the node reads them through this and keeps
/// the ones it downloads itself, with no need to know the store behind it.
public protocol ArtworkStore: Sendable {
    /// The cached bytes for an artwork key; nil if not cached.
    func artwork(key: String) async throws -> ArtworkBlob?

    /// Caches a picture fetched later (S13) and points every item with that artwork URL at it; returns
    /// the containers whose listings changed.
    @discardableResult
    func attachArtwork(_ blob: ArtworkBlob, toItemsWithArtworkURL url: String) async throws -> CatalogDiff
}

extension CatalogDatabase: ArtworkStore {}
