import ContentTree
import MediaJSON

/// What the catalog service tells the node, and what it waits for: its one seam to the rest of the node.
public protocol CatalogObserver: Sendable {
    /// Returns once the initial state is out: checking and refreshing the cache before would slow the start.
    func waitUntilStarted() async
    /// Publishes a non-retained event on `P/events`.
    func publishEvent(_ type: NodeEvent, _ fields: [String: JSONValue])
    /// Rereads the catalog's counts for `P/info`.
    func refreshCatalogSummary() async
    /// Says why a section is empty (S25).
    func setSectionStatus(_ reason: EmptyRootReason, for section: String) async
    /// Says why the root is empty (S25).
    func setEmptyRootReason(_ reason: EmptyRootReason) async
}
