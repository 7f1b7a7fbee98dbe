import ContentTree
import Logging
import MediaJSON

/// The node's parts the catalog service reports to: events, the counts in `P/info`, and the tree's
/// empty-state items.
struct CatalogFollower: CatalogObserver {
    let started: Latch
    let events: EventPublisher
    let info: NodeInfo
    let content: NodeContent?
    let logger: Logger

    func waitUntilStarted() async { await started.wait() }
    func publishEvent(_ type: NodeEvent, _ fields: [String: JSONValue]) { events.publish(type, fields) }
    func refreshCatalogSummary() async { await info.refreshCatalogSummary() }

    func setSectionStatus(_ reason: EmptyRootReason, for section: String) async {
        await content?.setSectionStatus(reason, for: section, logger: logger)
    }

    func setEmptyRootReason(_ reason: EmptyRootReason) async {
        await content?.setEmptyRootReason(reason, logger: logger)
    }
}
