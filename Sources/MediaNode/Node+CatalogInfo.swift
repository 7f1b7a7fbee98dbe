import ContentTree
import MediaJSON
import Synchronization

/// The catalog counts `P/info` carries, and which read produced them: a slow read that started earlier
/// never overwrites a newer one.
final class CatalogInfoState: Sendable {
    private struct State {
        var nextTicket = 0
        var storedTicket = -1
        var summary: CatalogSummary?
    }

    private let state = Mutex(State())

    func takeTicket() -> Int {
        state.withLock { state in
            defer { state.nextTicket += 1 }
            return state.nextTicket
        }
    }

    /// Stores `summary` unless a read that started later already stored its own; returns whether it did.
    func store(_ summary: CatalogSummary, ticket: Int) -> Bool {
        state.withLock { state in
            guard ticket > state.storedTicket else { return false }
            state.storedTicket = ticket
            state.summary = summary
            return true
        }
    }

    var summary: CatalogSummary? { state.withLock { $0.summary } }
}

// MARK: - The catalog summary in P/info

extension Node {
    /// Reads the catalog's counts from the cache and republishes `P/info` when they changed: at start (the
    /// first `P/info` waits for it, so it already counts what is cached) and after every refresh.
    public func refreshCatalogSummary() async {
        guard let catalog else { return }
        let ticket = catalogInfo.takeTicket()
        do {
            let summary = try await catalog.summary()
            if catalogInfo.store(summary, ticket: ticket) {
                catalogPlayables.record(summary.playables)
                publishInfo()
            }
        } catch is CancellationError {
            return
        } catch {
            logger.warning("cannot read the catalog summary: \(error)")
            if retained.current(topics.info) == nil { publishInfo() }
        }
    }

    /// The `catalog` object of `P/info`: what the node was told to serve and what its cache holds now.
    func catalogInfoDocument() -> JSONValue {
        var document: [String: JSONValue] = [
            "libraries": .array(configuration.libraries.map(JSONValue.string)),
            "catalogs": .array(configuration.catalogs.map(JSONValue.string)),
        ]
        if let summary = catalogInfo.summary {
            document["sources"] = .number(Double(summary.sources))
            document["containers"] = .number(Double(summary.containers))
            document["playables"] = .number(Double(summary.playables))
        }
        return .object(document)
    }
}
