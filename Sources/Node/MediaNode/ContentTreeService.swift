import CatalogStore
import ContentTree
import Downloads
import Foundation
import Logging
import MediaJSON
import Playback
import RemoteCommands
import ServiceLifecycle

// MARK: - The retained content tree

/// Publishes the upper levels of the tree once the command subscriptions and capabilities are in place
/// (S19), then follows catalog changes and the progress the playback observers mark; reads the catalog's
/// counts for `P/info`.
struct ContentTreeService: Service {
    let ready: Latch
    /// Opens once the initial state, the tree's upper levels included, is out.
    let started: Latch
    let content: NodeContent
    let catalog: any ContentCatalog
    let treeArtwork: TreeArtworkPublisher
    let info: NodeInfo
    let retained: RetainedPublisher
    /// Which tree nodes earlier runs left retained, when the catalog file remembers it.
    let retainedBook: RetainedTopicBook?
    let treeTopic: String
    let logger: Logger

    func run() async throws {
        await cancelWhenGracefulShutdown { [self] in
            await ready.wait()
            // Followed from before the tree is read: no change committed meanwhile is missed.
            let changes = catalog.changes()
            await withDiscardingTaskGroup { group in
                group.addTask { await publishInitialTree() }
                group.addTask { for await diff in changes { content.mark(diff) } }
                group.addTask { await flushContent() }
                group.addTask { await content.runPrefetches() }
                group.addTask(priority: .utility) { await treeArtwork.run() }
                // P/info waits for the catalog's counts, which take a while on a large cache; they are read
                // once the rest is out, not to slow it down.
                group.addTask {
                    await started.wait()
                    await info.refreshCatalogSummary()
                }
            }
        }
    }

    private func publishInitialTree() async {
        do {
            _ = try await content.manager.start()
        } catch {
            logger.error("cannot read the catalog for the content tree: \(error)")
        }
        started.open()
        await clearLeftoverTree()
    }

    /// One flush per burst: waits a moment for more changes, then republishes what they touched (S27).
    private func flushContent() async {
        for await _ in content.wake {
            try? await Task.sleep(for: content.settings.coalescingWindow)
            let (diff, progress) = content.takePending()
            guard !diff.isEmpty || !progress.isEmpty else { continue }
            do {
                _ = try await content.manager.apply(diff, progressChanged: progress)
            } catch is CancellationError {
                return
            } catch {
                logger.warning("could not republish the content tree after a change: \(error)")
            }
        }
    }

    /// Clears the tree nodes an earlier run left retained that this run has not published (deeper nodes
    /// browsed then, nodes of content gone since): a fresh subscriber to the tree sees only live nodes.
    private func clearLeftoverTree() async {
        guard let retainedBook else { return }
        let tree = treeTopic
        let leftovers = await retainedBook.leftovers().filter { $0 == tree || $0.hasPrefix(tree + "/") }
        guard !leftovers.isEmpty else { return }
        let cleared = retained.clearLeftovers(leftovers)
        if !cleared.isEmpty {
            logger.info("clearing tree nodes an earlier run left retained", metadata: ["count": "\(cleared.count)"])
        }
    }

    /// Publishes nodes retained and clears the ones that vanished, in the update's order. The content
    /// manager calls it inside the turn that made the update, so updates reach the broker in the order made.
    static func treePublisher(retained: RetainedPublisher, topics: TopicLayout, treeArtwork: TreeArtworkPublisher)
        -> @Sendable (TreeUpdate) -> Void
    {
        { update in
            for change in update.changes {
                switch change {
                case let .publish(node):
                    retained.publish(
                        topics.contentTree(node.indexPath.indices), update.document(for: node, artworkTopic: topics.artwork).bytes)
                    treeArtwork.publish(([node.item] + node.children).compactMap { $0?.artworkKey })
                case let .clear(path):
                    retained.clear(topics.contentTree(path.indices))
                }
            }
        }
    }
}

// MARK: - Why the tree is empty

extension NodeContent {
    /// Says why the root is empty (no media, still loading, offline); the status item follows (S25).
    func setEmptyRootReason(_ reason: EmptyRootReason, logger: Logger) async {
        do {
            _ = try await manager.setEmptyRootReason(reason)
        } catch {
            logger.warning("could not republish the root: \(error)")
        }
    }

    /// Says why a section is empty (S25); its status item follows while it is.
    func setSectionStatus(_ reason: EmptyRootReason, for section: String, logger: Logger) async {
        do {
            _ = try await manager.setSectionStatus(reason, for: section)
        } catch {
            logger.warning("could not republish section \(section): \(error)")
        }
    }

    static func make(catalog: (any ContentCatalog)?, configuration: NodeConfiguration,
                     publish: @escaping @Sendable (TreeUpdate) -> Void) -> NodeContent? {
        guard let catalog else { return nil }
        let topics = configuration.topics
        let settings = configuration.content
        let tree = ContentTreeConfiguration(
            publishedDepth: settings.publishedDepth, pageSize: settings.pageSize, artworkTopic: { topics.artwork($0) })
        // With sources configured, the catalog service says what came of them once it has read them.
        let hasSources = !configuration.libraries.isEmpty || !configuration.catalogs.isEmpty
        let reason: EmptyRootReason = hasSources ? .loading : .noMedia
        // Recently Played and Favorites fill as the listener plays and marks: empty, they say "no media" from
        // the first publish, never "loading".
        let listening = [ContentItem.Section.recent, ContentItem.Section.favorites]
        return NodeContent(
            manager: PlayableContentManager(
                catalog: catalog, configuration: tree, emptyRootReason: reason,
                sectionStatus: Dictionary(uniqueKeysWithValues: listening.map { ($0, .noMedia) }), publish: publish),
            settings: settings)
    }
}

// MARK: - P/context

/// Follows `P/context` from the vehicle: the content limits (S22), `networkMetered` for downloads and
/// `vehicleSpeed` for the speed gain; a malformed context is ignored and reported.
struct ContextFollower: Sendable {
    let content: NodeContent?
    let level: OutputLevel?
    let downloads: DownloadManager?
    let speedGain: VehicleSpeedGain
    let events: EventPublisher
    let logger: Logger

    func apply(_ payload: [UInt8]) async {
        let document = try? JSONValue(parsing: payload)
        if let downloads, case let .object(fields)? = document, case let .bool(metered)? = fields["networkMetered"] {
            downloads.setMetered(metered)
        }
        if let level, let document, let gain = speedGain.gainDb(for: document) {
            await level.setSpeedGain(gain)
        }
        guard let content else { return }
        do {
            let document = try JSONValue(parsing: payload)
            let limits = try ContentLimits(context: document, previous: await content.manager.limits)
            _ = try await content.manager.setLimits(limits)
        } catch {
            logger.warning("ignored a context message: \(error)")
            events.publish(["type": "error", "message": .string("context: \(error)")])
        }
    }
}
