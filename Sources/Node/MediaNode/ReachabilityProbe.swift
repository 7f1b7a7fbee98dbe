import CatalogStore
import Foundation
import Synchronization

/// Wraps the catalog fetcher to learn, per URL, whether the last attempt reached the server: any HTTP
/// answer (even a 500) means reachable; a timeout or a failed connection means not. The catalog service
/// turns changes of that into `connectivity` events.
final class ReachabilityProbe: CatalogFetcher {
    let fetcher: any CatalogFetcher

    private struct State {
        var outcomes: [URL: Bool] = [:]
        var reported: [URL: Bool] = [:]
        var failedArtwork: Set<String> = []
        var artworkRunning = false
    }

    private let state = Mutex(State())

    init(_ fetcher: any CatalogFetcher) { self.fetcher = fetcher }

    func fetch(_ request: FetchRequest) async throws -> FetchResponse {
        do {
            let response = try await fetcher.fetch(request)
            record(true, for: request.url)
            return response
        } catch let error as RefreshError where error.isConnectivityFailure {
            record(false, for: request.url)
            throw error
        }
    }

    private func record(_ reachable: Bool, for url: URL) { state.withLock { $0.outcomes[url] = reachable } }

    /// Whether the last attempt on `url` reached its server; nil before any attempt.
    func lastOutcome(for url: URL) -> Bool? { state.withLock { $0.outcomes[url] } }

    /// Notes that `online` was announced for `url`; false when that is what was announced last.
    func markReported(_ online: Bool, for url: URL) -> Bool {
        state.withLock { state in
            guard state.reported[url] != online else { return false }
            state.reported[url] = online
            return true
        }
    }

    // MARK: - Artwork bookkeeping

    func failedArtwork() -> Set<String> { state.withLock { $0.failedArtwork } }

    func recordFailedArtwork(_ urls: [String]) { state.withLock { $0.failedArtwork.formUnion(urls) } }

    /// Claims the artwork downloads; false when another refresh is already running them.
    func beginArtwork() -> Bool {
        state.withLock { state in
            guard !state.artworkRunning else { return false }
            state.artworkRunning = true
            return true
        }
    }

    func endArtwork() { state.withLock { $0.artworkRunning = false } }
}
