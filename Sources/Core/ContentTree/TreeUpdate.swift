import MediaJSON

/// What the node must do to the retained tree after one operation: publish nodes (parents before
/// children) and clear the ones that no longer exist or are no longer allowed. One update is one flush.
public struct TreeUpdate: Sendable, Hashable {
    public enum Change: Sendable, Hashable {
        case publish(ContentTreeNode)
        case clear(IndexPath)
    }

    public var changes: [Change] = []
    /// The published nodes' documents as the manager encoded them, by path and version.
    private var documents: [IndexPath: (version: Int, document: EncodedJSON)] = [:]

    public init(changes: [Change] = []) { self.changes = changes }

    /// The document to publish for `node`: the one encoded when it was recorded, else encoded now.
    public func document(for node: ContentTreeNode, artworkTopic: (String) -> String) -> EncodedJSON {
        if let stored = documents[node.indexPath], stored.version == node.version { return stored.document }
        return EncodedJSON(node.json(artworkTopic: artworkTopic))
    }

    mutating func append(_ node: ContentTreeNode, document: EncodedJSON) {
        changes.append(.publish(node))
        documents[node.indexPath] = (node.version, document)
    }

    // The documents follow from the changes: equality is theirs alone.
    public static func == (lhs: TreeUpdate, rhs: TreeUpdate) -> Bool { lhs.changes == rhs.changes }
    public func hash(into hasher: inout Hasher) { hasher.combine(changes) }

    public var isEmpty: Bool { changes.isEmpty }
    public var published: [ContentTreeNode] {
        changes.compactMap { if case let .publish(node) = $0 { node } else { nil } }
    }
    public var cleared: [IndexPath] {
        changes.compactMap { if case let .clear(path) = $0 { path } else { nil } }
    }

    mutating func append(_ other: TreeUpdate) {
        changes += other.changes
        documents.merge(other.documents) { $1 }
    }
}

/// The answer to a browse (S26, S28): the node, or why there is none.
public enum BrowseAnswer: Sendable, Hashable {
    /// The node, the update that publishes it, and the containers worth prefetching.
    case node(ContentTreeNode, TreeUpdate, prefetch: [String])
    /// Unknown path, a playable, or beyond the enforced depth.
    case noSuchContent(String)
}

/// An index path resolved to its items: what `playItem` plays and `nowPlayingIdentifiers` names.
public struct ResolvedPath: Sendable, Hashable {
    public var indexPath: IndexPath
    /// The items from the root's child down to the addressed item.
    public var items: [ContentItem]

    public var item: ContentItem? { items.last }
    /// Identifiers from the section down to the item (MPNowPlayingInfoCenter's nowPlayingIdentifiers).
    public var identifiers: [String] { items.map(\.identifier) }
    /// The container holding the item (the root for a section).
    public var containerIdentifier: String {
        items.count >= 2 ? items[items.count - 2].identifier : ContentItem.rootIdentifier
    }
}
