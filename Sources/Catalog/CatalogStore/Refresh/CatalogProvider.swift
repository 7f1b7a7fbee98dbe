import ContentTree
import Foundation

/// A source of catalog content (local folders, a podcast feed, a radio list, a JSON catalog): it produces a
/// complete snapshot, or says nothing changed; the refresher stores it. Providers never touch the database
/// beyond the context they are given.
public protocol CatalogProvider: Sendable {
    var source: CatalogSource { get }

    /// Produces the source's current content; throws when it cannot, and then nothing stored changes.
    func load(_ context: RefreshContext) async throws -> ProviderResult
}

/// What a provider may consult: its source's stored sync state, and for local scans the previous file records.
public struct RefreshContext: Sendable {
    public var syncState: SourceSyncState
    public var database: CatalogDatabase

    public init(syncState: SourceSyncState, database: CatalogDatabase) {
        self.syncState = syncState
        self.database = database
    }
}

/// The outcome of a successful load.
public enum ProviderResult: Sendable {
    /// Nothing new (HTTP 304, an identical body, untouched folders): keep the stored content.
    case unchanged(FetchValidators)
    /// New content, to replace the stored content as a whole.
    case content(CatalogSnapshot, FetchValidators)
}

/// Turns downloaded bytes into a snapshot: the pure half of a remote source, testable without a network.
public protocol CatalogParser: Sendable {
    /// `baseURL` resolves relative links (the URL the bytes came from).
    func parse(_ data: Data, baseURL: URL?, source: CatalogSource) throws -> CatalogSnapshot
}

/// Why bytes could not be turned into a catalog.
public struct CatalogParseError: Error, CustomStringConvertible, Equatable {
    public var description: String
    public init(_ description: String) { self.description = description }
}
