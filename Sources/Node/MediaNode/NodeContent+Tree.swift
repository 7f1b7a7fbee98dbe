import ContentTree
import Logging

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

extension NodeContent {
    /// A container's playable children in catalog order (at most the 1000 a queue takes from one container).
    func playableChildren(of container: ContentItem) async throws -> [ContentItem] {
        let page = try await manager.catalog.children(of: container.identifier, offset: 0, limit: 1000)
        return page.items.filter { $0.isPlayable && $0.uri != nil }
    }
}
