import ContentTree
import Foundation
import Logging

/// Runs one provider's refresh against the store: load, then swap in one transaction, or record the error
/// and keep the previous content. The scheduling service (every N minutes, on connectivity) calls this.
public struct CatalogRefresher: Sendable {
    public let database: CatalogDatabase
    let logger: Logger

    public init(database: CatalogDatabase, logger: Logger = Logger(label: "medianode.catalog.refresh")) {
        self.database = database
        self.logger = logger
    }

    /// What one refresh did.
    public enum Report: Sendable, Equatable {
        case updated(CatalogDiff)
        case unchanged
        case failed(String)
    }

    /// Refreshes one source; never throws: a failure is logged, stored in the source's sync state, and the
    /// stored content stays as it was.
    @discardableResult
    public func refresh(_ provider: any CatalogProvider) async -> Report {
        let source = provider.source
        do {
            try await database.register(source)
            let state = try await database.syncState(for: source.identifier)
            switch try await provider.load(RefreshContext(syncState: state, database: database)) {
            case let .unchanged(validators):
                try await database.recordUnchanged(validators, for: source.identifier)
                logger.debug("catalog source unchanged", metadata: ["source": "\(source.identifier)"])
                return .unchanged
            case let .content(snapshot, validators):
                for problem in snapshot.problems {
                    logger.warning("catalog data left out", metadata: ["source": "\(source.identifier)", "problem": "\(problem)"])
                }
                let diff = try await database.replaceContent(of: source.identifier, with: snapshot, validators: validators)
                logger.info(
                    "catalog source refreshed",
                    metadata: [
                        "source": "\(source.identifier)", "items": "\(snapshot.count)",
                        "changedContainers": "\(diff.containersToPublish.count + diff.removedContainers.count)",
                    ])
                return diff.isEmpty ? .unchanged : .updated(diff)
            }
        } catch {
            // SQLite says "disk I/O error" for a file-size limit; the operator needs the limit.
            let message = database.writeFailureCause(error).map { "the catalog cannot be stored: \($0) (\(error))" }
                ?? String(describing: error)
            logger.warning(
                "catalog refresh failed; keeping the previous content",
                metadata: ["source": "\(source.identifier)", "location": "\(source.location)", "error": "\(message)"])
            try? await database.recordFailure(message, for: source.identifier)
            return .failed(message)
        }
    }
}
