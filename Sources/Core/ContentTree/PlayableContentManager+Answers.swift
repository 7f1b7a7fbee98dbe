import MediaJSON

// MARK: - Answering a browse from the published documents

extension PlayableContentManager {
    /// The answer to a browse that changes nothing: `path` is published holding exactly this page. Nil
    /// when the browse must go through `browse` (another page, an unpublished node, a pending change).
    /// Takes no turn and reads no catalog, so a repeated browse is answered at once (S26).
    public nonisolated func publishedAnswer(_ path: IndexPath, offset: Int?, limit: Int?) -> PublishedAnswer? {
        answers.answer(path, offset: offset ?? 0, pageSize: pageSize(forLimit: limit))
    }

    /// Tells the manager a committed catalog change is on its way to `apply`: the nodes it may touch are
    /// no longer answered from their published documents.
    public nonisolated func catalogChanged(_ diff: CatalogDiff) {
        if diff.changedContainers.contains(ContentItem.rootIdentifier) {
            answers.removeAll()
        } else {
            answers.invalidate(containers: diff.changedContainers.union(diff.addedContainers).union(diff.removedContainers))
        }
    }

    /// Tells the manager these items' saved positions changed; the lists showing them are read again.
    public nonisolated func progressChanged(_ identifiers: Set<String>) {
        answers.invalidate(listing: identifiers)
    }

    /// The page size a browse with `limit` renders.
    nonisolated func pageSize(forLimit limit: Int?) -> Int {
        min(max(1, limit ?? configuration.pageSize), configuration.maximumPageSize)
    }

    /// Keeps the answer for a node as published; `content` is its document without `version`.
    @discardableResult
    func storeAnswer(_ node: ContentTreeNode, content: [UInt8]) -> EncodedJSON {
        let prefetch = limits.allowsNode(atDepth: node.indexPath.depth + 1)
            ? Array(node.children.filter(\.isContainer).prefix(configuration.prefetchedContainers).map(\.identifier))
            : []
        let document = EncodedJSON(encoded: ContentTreeNode.document(content: content, version: node.version))
        answers.store(
            PublishedAnswer(node: node, document: document, prefetch: prefetch),
            pageSize: requestedLimits[node.indexPath] ?? configuration.pageSize)
        return document
    }

    /// Stores the answer of a node kept as it was, if a change notice dropped it.
    func restoreAnswer(_ node: ContentTreeNode) {
        guard !answers.contains(node.indexPath), let content = contents[node.indexPath] else { return }
        storeAnswer(node, content: content)
    }
}

extension ContentTreeNode {
    /// The full document from the one without `version`: `version` sorts after every other key of a node,
    /// so appending it gives exactly the bytes `json(artworkTopic:).jsonBytes` writes.
    static func document(content: [UInt8], version: Int) -> [UInt8] {
        guard content.last == UInt8(ascii: "}") else { return content }
        var document = content
        document.removeLast()
        if document.count > 1 { document.append(UInt8(ascii: ",")) }
        document.append(contentsOf: "\"version\":\(version)}".utf8)
        return document
    }
}
