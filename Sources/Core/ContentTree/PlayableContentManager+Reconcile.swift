// MARK: - Bringing the published nodes in line with the catalog and the limits

extension PlayableContentManager {
    /// Walks the published tree from the root, parents first. A node is rendered again when `isDirty`
    /// says so or its position may now hold another container (its parent's child list changed, or its
    /// container was removed); it is published only if its document changed. Missing nodes of the upper
    /// levels are added, and nodes that lead nowhere or are too deep are cleared.
    ///
    /// All or nothing: when a catalog read fails halfway, the update is never published, so the nodes
    /// recorded so far are forgotten again and the next reconcile renders them afresh.
    ///
    /// The walk runs in a task of its own that ends with it. A task keeps the memory of its deepest call
    /// stack for as long as it runs (Swift's task allocator frees its slabs only at the end), a level of
    /// the walk takes about 27 KB of it, and the tasks that ask for a reconcile run as long as the node.
    func reconcile(removed: Set<String> = [], isDirty: @escaping @Sendable (ContentTreeNode) -> Bool) async throws -> TreeUpdate {
        var childPaths: [IndexPath: [IndexPath]] = [:]
        for path in nodes.keys {
            if let parent = path.parent { childPaths[parent, default: []].append(path) }
        }
        for list in childPaths.keys { childPaths[list]?.sort(by: Self.treeOrder) }
        let before = (nodes, contents, requestedLimits)
        do {
            return try await withThrowingTaskGroup(of: TreeUpdate.self) { [childPaths] group in
                group.addTask { try await self.walk(childPaths: childPaths, removed: removed, isDirty: isDirty) }
                return try await group.next() ?? TreeUpdate()
            }
        } catch {
            (nodes, contents, requestedLimits) = before
            answers.removeAll()
            throw error
        }
    }

    private func walk(
        childPaths: [IndexPath: [IndexPath]], removed: Set<String>, isDirty: (ContentTreeNode) -> Bool
    ) async throws -> TreeUpdate {
        var update = TreeUpdate()
        try await visit(.root, container: nil, childPaths: childPaths, removed: removed, isDirty: isDirty, &update)
        return update
    }

    private func visit(
        _ path: IndexPath, container: ContentItem?, childPaths: [IndexPath: [IndexPath]], removed: Set<String>,
        isDirty: (ContentTreeNode) -> Bool, _ update: inout TreeUpdate
    ) async throws {
        let old = nodes[path]
        var node: ContentTreeNode
        var childListChanged = false
        if let old, old.containerIdentifier == (container?.identifier ?? ContentItem.rootIdentifier), !isDirty(old) {
            node = old
            restoreAnswer(old)
        } else {
            let limit = requestedLimits[path] ?? configuration.pageSize
            let fresh = try await render(path, container: container, offset: old?.offset ?? 0, limit: limit)
            childListChanged = old.map { $0.children.map(\.identifier) != fresh.children.map(\.identifier) } ?? true
            node = record(fresh, &update)
        }
        // Published children: same position, maybe another container now.
        for childPath in childPaths[path] ?? [] {
            guard let child = nodes[childPath], let index = childPath.last else { continue }
            // A dirty child is read again too: its own fields (the node's `item`) may have changed.
            let mustResolve = childListChanged || removed.contains(child.containerIdentifier)
                || !limits.allowsNode(atDepth: childPath.depth) || isDirty(child)
            var item = child.item
            if mustResolve {
                item = limits.allowsNode(atDepth: childPath.depth) ? try await childItem(of: node, at: index) : nil
            }
            guard let item, item.isContainer else {
                clearSubtree(childPath, &update)
                continue
            }
            try await visit(childPath, container: item, childPaths: childPaths, removed: removed, isDirty: isDirty, &update)
        }
        // The upper levels are published unasked.
        guard path.depth < automaticDepth else { return }
        for (position, child) in node.children.enumerated() where child.isContainer {
            let childPath = path.appending(node.offset + position)
            guard nodes[childPath] == nil else { continue }
            try await visit(childPath, container: child, childPaths: [:], removed: removed, isDirty: isDirty, &update)
        }
    }

    /// The child of a node at an absolute position: from its page when listed there, else from the catalog.
    private func childItem(of node: ContentTreeNode, at index: Int) async throws -> ContentItem? {
        guard index < limits.cap(Int.max) else { return nil }
        let local = index - node.offset
        if node.children.indices.contains(local) { return node.children[local] }
        let page = try await catalog.children(of: node.containerIdentifier, offset: index, limit: 1)
        return page.offset == index ? page.items.first : nil
    }

    /// Builds a node from the cache: one page of children, capped by the limits. A list with nothing to
    /// show, the root, a section or any container below, gets a status item (S25): no node is ever
    /// published or answered empty, whatever order the catalog fills in.
    func render(_ path: IndexPath, container: ContentItem?, offset: Int, limit: Int) async throws -> ContentTreeNode {
        let identifier = container?.identifier ?? ContentItem.rootIdentifier
        let start = max(0, offset)
        var pageLimit = min(limit, configuration.maximumPageSize)
        if let maximum = limits.maximumChildren { pageLimit = max(0, min(pageLimit, maximum - start)) }
        let page: ContentPage
        if pageLimit > 0 {
            page = try await self.page(of: identifier, offset: start, limit: pageLimit)
        } else {
            page = ContentPage(containerIdentifier: identifier, childCount: try await catalog.childCount(of: identifier),
                               offset: start, items: [])
        }
        var children = page.items
        var childCount = limits.cap(page.childCount)
        if page.childCount == 0 {
            let status = emptyStatus(path, identifier)
            children = start == 0 ? [path.depth == 1 ? status.item(inSection: identifier) : status.item] : []
            childCount = 1
        }
        return ContentTreeNode(
            indexPath: path, item: container, containerIdentifier: identifier, childCount: childCount, offset: start,
            children: children, displaysPlaybackProgress: container?.displaysPlaybackProgress ?? false, version: 0)
    }

    /// Why a list is empty: the root's reason; a section's own (loading until its sources are read);
    /// below the sections, a container its source left empty.
    func emptyStatus(_ path: IndexPath, _ identifier: String) -> EmptyRootReason {
        switch path.depth {
        case 0: emptyRootReason
        case 1: sectionStatus[identifier] ?? .loading
        default: .noMedia
        }
    }

    /// Keeps `fresh` as the node at its path; a new version and a publish only when its document changed.
    func record(_ fresh: ContentTreeNode, _ update: inout TreeUpdate) -> ContentTreeNode {
        let path = fresh.indexPath
        let content = fresh.contentBytes(artworkTopic: configuration.artworkTopic)
        if let old = nodes[path], contents[path] == content {
            // Stored again: the page size asked for may differ, or a change notice may have dropped it.
            storeAnswer(old, content: content)
            return old
        }
        var node = fresh
        lastVersion = max(lastVersion + 1, configuration.clock())
        node.version = lastVersion
        nodes[path] = node
        contents[path] = content
        update.append(node, document: storeAnswer(node, content: content))
        return node
    }

    /// Forgets a node and everything below it, each with a clear.
    func clearSubtree(_ path: IndexPath, _ update: inout TreeUpdate) {
        let doomed = nodes.keys.filter { $0.indices.starts(with: path.indices) }.sorted(by: Self.treeOrder)
        for gone in doomed {
            nodes[gone] = nil
            contents[gone] = nil
            requestedLimits[gone] = nil
            answers.remove(gone)
            update.changes.append(.clear(gone))
        }
    }

    /// Walks an index path through the published pages where it can, the catalog where it must.
    func resolveItems(_ path: IndexPath) async throws -> ResolvedPath? {
        var items: [ContentItem] = []
        var container = ContentItem.rootIdentifier
        for (depth, index) in path.indices.enumerated() {
            guard index >= 0, index < limits.cap(Int.max) else { return nil }
            let above = IndexPath(Array(path.indices.prefix(depth)))
            let item: ContentItem?
            if let node = nodes[above], node.containerIdentifier == container,
               node.children.indices.contains(index - node.offset) {
                item = node.children[index - node.offset]
            } else {
                let page = try await catalog.children(of: container, offset: index, limit: 1)
                item = page.offset == index ? page.items.first : nil
            }
            guard let item else { return nil }
            items.append(item)
            if depth < path.depth - 1 {
                guard item.isContainer else { return nil }
                container = item.identifier
            }
        }
        return ResolvedPath(indexPath: path, items: items)
    }

    // MARK: - Pages, with the prefetch cache in front

    func page(of container: String, offset: Int, limit: Int) async throws -> ContentPage {
        if let page = prefetched[PageKey(container: container, offset: offset, limit: limit)] { return page }
        return try await catalog.children(of: container, offset: offset, limit: limit)
    }

    func remember(_ page: ContentPage, as key: PageKey) {
        if prefetched.updateValue(page, forKey: key) == nil { prefetchOrder.append(key) }
        while prefetchOrder.count > Self.prefetchCapacity {
            prefetched[prefetchOrder.removeFirst()] = nil
        }
    }
}
