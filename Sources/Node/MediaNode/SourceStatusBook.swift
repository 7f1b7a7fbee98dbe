import CatalogStore
import ContentTree
import Synchronization

/// What became of each source's latest refresh, gathered into why a section, or the root, is empty (S25):
/// loading while one of its sources has not been read yet, offline when one could not be reached, no
/// media when they were all read and hold nothing.
///
/// Threading: refreshes of different sources run at once; every call takes the lock.
final class SourceStatusBook: Sendable {
    enum Outcome: Sendable {
        case pending, loaded, unreachable
    }

    private let outcomes: Mutex<[String: (mount: String, outcome: Outcome)]>

    init(_ sources: [CatalogSource]) {
        outcomes = Mutex(Dictionary(sources.map { ($0.identifier, ($0.mount, Outcome.pending)) }) { first, _ in first })
    }

    /// Records a refresh; returns the source's section with its status, and the root's.
    func record(_ outcome: Outcome, for source: CatalogSource) -> (section: String, status: EmptyRootReason, root: EmptyRootReason) {
        outcomes.withLock { outcomes in
            outcomes[source.identifier] = (source.mount, outcome)
            let section = outcomes.values.filter { $0.mount == source.mount }.map(\.outcome)
            return (source.mount, Self.status(section), Self.status(Array(outcomes.values.map(\.outcome))))
        }
    }

    static func status(_ outcomes: [Outcome]) -> EmptyRootReason {
        if outcomes.contains(where: { if case .pending = $0 { true } else { false } }) { return .loading }
        if outcomes.contains(where: { if case .unreachable = $0 { true } else { false } }) { return .offline }
        return .noMedia
    }
}
