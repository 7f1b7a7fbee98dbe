import MediaJSON

/// The playable content manager (MPPlayableContentManager for MQTT): turns the catalog into the retained
/// tree of index-path nodes (S18, S20), answers browse and lookup from the local cache (S26), keeps the
/// content limits of a moving vehicle (S22), and maps catalog changes to the few nodes that changed (S27).
///
/// It never talks MQTT: every operation returns a `TreeUpdate` for the node to publish in one flush.
/// Threading: an actor; operations that change the published set take turns in arrival order, so a
/// catalog flush never interleaves with a browse halfway.
public actor PlayableContentManager {
    public nonisolated let catalog: any ContentCatalog
    public nonisolated let configuration: ContentTreeConfiguration
    public private(set) var limits: ContentLimits = .none
    public private(set) var emptyRootReason: EmptyRootReason
    /// Why a section (a child of the root) with nothing in it is empty; a section not named here is
    /// still loading.
    public private(set) var sectionStatus: [String: EmptyRootReason] = [:]

    /// The nodes as last published, by index path.
    var nodes: [IndexPath: ContentTreeNode] = [:]
    /// Each node's document without its version, encoded, to tell a content change from a republish.
    var contents: [IndexPath: [UInt8]] = [:]
    /// The published documents, for browses that change nothing.
    nonisolated let answers = PublishedAnswers()
    /// Page sizes asked for by browse, where they differ from the configured one.
    var requestedLimits: [IndexPath: Int] = [:]
    var lastVersion = 0
    /// First pages loaded ahead of a browse (S28), dropped on every catalog change.
    var prefetched: [PageKey: ContentPage] = [:]
    var prefetchOrder: [PageKey] = []
    static let prefetchCapacity = 512

    var isTurnTaken = false
    var turnWaiters: [CheckedContinuation<Void, Never>] = []

    struct PageKey: Hashable {
        var container: String
        var offset: Int
        var limit: Int
    }

    /// Where every update goes, inside the turn that made it: updates made one after another reach the
    /// retained topics in that order (a context's limits clearing a node the start had just published
    /// must not be overtaken by that publication).
    private let publish: @Sendable (TreeUpdate) -> Void

    /// - Parameters:
    ///   - sectionStatus: why sections known from the start are empty while they are (sections no source
    ///     fills, which would otherwise say `loading` until told).
    ///   - publish: receives each update (publications and clears) in the order they were made.
    public init(catalog: any ContentCatalog, configuration: ContentTreeConfiguration = .init(),
                emptyRootReason: EmptyRootReason = .noMedia, sectionStatus: [String: EmptyRootReason] = [:],
                publish: @escaping @Sendable (TreeUpdate) -> Void = { _ in }) {
        self.catalog = catalog
        self.configuration = configuration
        self.emptyRootReason = emptyRootReason
        self.sectionStatus = sectionStatus
        self.publish = publish
    }

    // MARK: - Reading

    /// Every published index path, parents before children.
    public var publishedPaths: [IndexPath] { nodes.keys.sorted(by: Self.treeOrder) }

    /// The node as last published at `path`.
    public func node(at path: IndexPath) -> ContentTreeNode? { nodes[path] }

    /// The progress a published list that displays progress shows for an item; nil when none lists it.
    public func shownProgress(of identifier: String) -> Double? {
        for node in nodes.values where node.displaysPlaybackProgress {
            if let child = node.children.first(where: { $0.identifier == identifier }) { return child.playbackProgress }
        }
        return nil
    }

    /// The deepest level published unasked under the current limits.
    var automaticDepth: Int {
        guard limits.isEnforced, let depth = limits.treeDepth else { return configuration.publishedDepth }
        return min(configuration.publishedDepth, depth - 1)
    }

    /// Parents before children, siblings in position order.
    static func treeOrder(_ lhs: IndexPath, _ rhs: IndexPath) -> Bool {
        lhs.depth != rhs.depth ? lhs.depth < rhs.depth : lhs.indices.lexicographicallyPrecedes(rhs.indices)
    }

    // MARK: - Operations

    /// Publishes the upper levels: the root, then `publishedDepth` levels of first pages.
    public func start() async throws -> TreeUpdate {
        try await exclusively { published(try await reconcile { _ in false }) }
    }

    /// Adopts a new context (S22): clears nodes now too deep, trims lists now too long, and publishes
    /// again what a lifted limit allows.
    public func setLimits(_ newLimits: ContentLimits) async throws -> TreeUpdate {
        try await exclusively {
            guard newLimits != limits else { return TreeUpdate() }
            limits = newLimits
            answers.removeAll()
            return published(try await reconcile { _ in true })
        }
    }

    /// Says why the root is empty; the status item follows (S25).
    public func setEmptyRootReason(_ reason: EmptyRootReason) async throws -> TreeUpdate {
        try await exclusively {
            guard reason != emptyRootReason else { return TreeUpdate() }
            emptyRootReason = reason
            return published(try await reconcile { $0.indexPath.isRoot })
        }
    }

    /// Says why a section is empty while it is (S25): loading until its sources have been read, then
    /// offline or no media. Its status item follows; a section with content is not changed.
    public func setSectionStatus(_ reason: EmptyRootReason, for section: String) async throws -> TreeUpdate {
        try await exclusively {
            guard sectionStatus[section] != reason else { return TreeUpdate() }
            sectionStatus[section] = reason
            return published(try await reconcile { $0.indexPath.depth == 1 && $0.containerIdentifier == section })
        }
    }

    /// Republishes what a committed catalog change (or a coalesced burst of them) touched, and the lists
    /// that display progress (S31) of an item whose saved position changed; clears nodes that vanished
    /// (S27). A list that does not display progress (an album) is not republished for it.
    public func apply(_ diff: CatalogDiff, progressChanged: Set<String> = []) async throws -> TreeUpdate {
        catalogChanged(diff)
        self.progressChanged(progressChanged)
        return try await exclusively {
            if !diff.isEmpty {
                prefetched.removeAll()
                prefetchOrder.removeAll()
            } else if !progressChanged.isEmpty {
                prefetched = prefetched.filter { !$0.value.items.contains { progressChanged.contains($0.identifier) } }
                prefetchOrder.removeAll { prefetched[$0] == nil }
            }
            let touched = diff.changedContainers.union(diff.addedContainers).union(diff.removedContainers)
            return published(try await reconcile(removed: diff.removedContainers) { node in
                touched.contains(node.containerIdentifier)
                    || (!progressChanged.isEmpty && node.displaysPlaybackProgress
                        && node.children.contains { progressChanged.contains($0.identifier) })
            })
        }
    }

    /// Answers a browse from the cache (S26) and publishes the node; beyond the enforced depth, at an
    /// unknown path or at a playable it answers noSuchContent.
    public func browse(_ path: IndexPath, offset: Int? = nil, limit: Int? = nil) async throws -> BrowseAnswer {
        try await exclusively {
            guard limits.allowsNode(atDepth: path.depth) else {
                return .noSuchContent(
                    "[\(path.description)] is at depth \(path.depth); the enforced depth is \(limits.treeDepth ?? 0)")
            }
            var container: ContentItem?
            if !path.isRoot {
                guard let item = try await resolveItems(path)?.item else {
                    return .noSuchContent("no item at index path [\(path.description)]")
                }
                guard item.isContainer else { return .noSuchContent("'\(item.identifier)' is not a container") }
                container = item
            }
            let pageSize = pageSize(forLimit: limit)
            if pageSize == configuration.pageSize {
                requestedLimits[path] = nil
            } else {
                requestedLimits[path] = pageSize
            }
            var update = TreeUpdate()
            let node = record(try await render(path, container: container, offset: offset ?? 0, limit: pageSize), &update)
            // This browse starts the prefetch; repeated ones answered from the document do not.
            let prefetch = answers.answer(path, offset: node.offset, pageSize: pageSize)?.prefetch ?? []
            return .node(node, published(update), prefetch: prefetch)
        }
    }

    /// Loads the first page of each container into memory, so browsing into them answers at once (S28).
    public func prefetch(_ containers: [String]) async {
        for container in containers {
            let key = PageKey(container: container, offset: 0, limit: limits.cap(configuration.pageSize))
            guard prefetched[key] == nil,
                  let page = try? await catalog.children(of: container, offset: 0, limit: key.limit) else { continue }
            remember(page, as: key)
        }
    }

    /// The item at an index path with the items above it, or nil when the path leads nowhere or deeper
    /// than the enforced depth allows (an item is reachable when the node listing it is).
    public func resolve(_ path: IndexPath) async throws -> ResolvedPath? {
        guard !path.isRoot, limits.allowsNode(atDepth: path.depth - 1) else { return nil }
        return try await resolveItems(path)
    }

    /// The item with this identifier, for `contentItem` (S21) and `playItem`.
    public func item(identifier: String) async throws -> ContentItem? {
        try await catalog.item(identifier: identifier)
    }

    /// The best matches for `search` from the local catalog, at most `limit` of them and, while content
    /// limits are enforced, no more than a list may show; `total` counts every match all the same.
    public func search(_ text: String, limit: Int) async throws -> SearchResults {
        try await catalog.search(text, limit: limits.maximumChildren.map { min($0, limit) } ?? limit)
    }

    // MARK: - Turns

    /// Hands `update` to the publisher; call inside the turn that made it.
    private func published(_ update: TreeUpdate) -> TreeUpdate {
        if !update.changes.isEmpty { publish(update) }
        return update
    }

    func exclusively<T>(_ body: () async throws -> T) async throws -> T {
        if isTurnTaken {
            await withCheckedContinuation { turnWaiters.append($0) }
        } else {
            isTurnTaken = true
        }
        defer {
            if turnWaiters.isEmpty { isTurnTaken = false } else { turnWaiters.removeFirst().resume() }
        }
        return try await body()
    }
}
