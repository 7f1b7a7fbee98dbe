import ContentTree
import Logging
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
            // On the sweep, not a timer of its own: in a rig, every node's recently played changes at each play.
            await DeadlineSweep.shared.sleep(for: content.settings.coalescingWindow)
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
