import ContentTree
import Foundation
import MediaJSON
import RemoteCommands
import ServiceLifecycle

// MARK: - The retained content tree

/// What the content tree service asks of the rest of the node: the tree's publishing, progress saves and
/// the catalog's counts, which reach the retained topics and the catalog through it.
protocol ContentTreePublishing: Sendable {
    /// Publishes the upper levels of the tree; opens `initialStatePublished` once they are out.
    func publishInitialTree(_ content: NodeContent) async
    /// Republishes what catalog changes and progress touched, once per burst, until cancelled.
    func flushContent(_ content: NodeContent) async
    /// While playing, saves the position on a clock, until cancelled.
    func saveProgressPeriodically() async
    /// Rereads the catalog's counts for `P/info`.
    func refreshCatalogSummary() async
}

/// Publishes the upper levels of the tree once the command subscriptions and capabilities are in place
/// (S19), then follows catalog changes and playback progress; reads the catalog's counts for `P/info`.
struct ContentTreeService: Service {
    let ready: Latch
    /// Opens once the initial state, the tree's upper levels included, is out.
    let started: Latch
    let content: NodeContent
    let catalog: any ContentCatalog
    let treeArtwork: TreeArtworkPublisher
    let tree: any ContentTreePublishing

    func run() async throws {
        await cancelWhenGracefulShutdown { [ready, started, content, catalog, treeArtwork, tree] in
            await ready.wait()
            // Followed from before the tree is read: no change committed meanwhile is missed.
            let changes = catalog.changes()
            await withDiscardingTaskGroup { group in
                group.addTask { await tree.publishInitialTree(content) }
                group.addTask { for await diff in changes { content.mark(diff) } }
                group.addTask { await tree.flushContent(content) }
                group.addTask { await tree.saveProgressPeriodically() }
                group.addTask { await content.runPrefetches() }
                group.addTask(priority: .utility) { await treeArtwork.run() }
                // P/info waits for the catalog's counts, which take a while on a large cache; they are read
                // once the rest is out, not to slow it down.
                group.addTask {
                    await started.wait()
                    await tree.refreshCatalogSummary()
                }
            }
        }
    }
}

extension Node: ContentTreePublishing {}

extension Node {
    func publishInitialTree(_ content: NodeContent) async {
        do {
            _ = try await content.manager.start()
        } catch {
            logger.error("cannot read the catalog for the content tree: \(error)")
        }
        initialStatePublished.open()
        await clearLeftoverTree()
    }

    /// One flush per burst: waits a moment for more changes, then republishes what they touched (S27).
    func flushContent(_ content: NodeContent) async {
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

    /// Clears the tree nodes an earlier run left retained that this run has not published (deeper nodes
    /// browsed then, nodes of content gone since): a fresh subscriber to the tree sees only live nodes.
    func clearLeftoverTree() async {
        guard let retainedBook else { return }
        let tree = topics.contentTree
        let leftovers = await retainedBook.leftovers().filter { $0 == tree || $0.hasPrefix(tree + "/") }
        guard !leftovers.isEmpty else { return }
        let cleared = retained.clearLeftovers(leftovers)
        if !cleared.isEmpty {
            logger.info("clearing tree nodes an earlier run left retained", metadata: ["count": "\(cleared.count)"])
        }
    }

    /// Adopts the vehicle's content limits (S22) and republishes what they affect.
    func applyContext(_ payload: [UInt8]) async {
        applyNetworkContext(payload)
        guard let content else { return }
        do {
            let document = try JSONValue(parsing: payload)
            let limits = try ContentLimits(context: document, previous: await content.manager.limits)
            _ = try await content.manager.setLimits(limits)
        } catch {
            logger.warning("ignored a context message: \(error)")
            publishEvent(["type": "error", "message": .string("context: \(error)")])
        }
    }

    /// Says why the root is empty (no media, still loading, offline); the status item follows (S25).
    public func setEmptyRootReason(_ reason: EmptyRootReason) async {
        guard let content else { return }
        do {
            _ = try await content.manager.setEmptyRootReason(reason)
        } catch {
            logger.warning("could not republish the root: \(error)")
        }
    }

    /// Says why a section is empty (S25); its status item follows while it is.
    public func setSectionStatus(_ reason: EmptyRootReason, for section: String) async {
        guard let content else { return }
        do {
            _ = try await content.manager.setSectionStatus(reason, for: section)
        } catch {
            logger.warning("could not republish section \(section): \(error)")
        }
    }

    /// The identifier path of the playing item, section first (S31), for now playing's
    /// `nowPlayingIdentifiers`: the path of the container its queue came from, then the item.
    public func nowPlayingIdentifiers(for identifier: String) -> [String] {
        (content?.queueContext ?? []) + [identifier]
    }

    /// The content manager, when the node has a catalog.
    public var contentManager: PlayableContentManager? { content?.manager }

    static func makeContent(catalog: (any ContentCatalog)?, configuration: NodeConfiguration,
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
