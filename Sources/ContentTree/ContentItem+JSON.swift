import MediaJSON

extension ContentItem {
    /// The item as the tree and `contentItem` publish it (S21): every field, null where absent. Artwork is
    /// named only with its type and size, as in now playing; a picture not cached has none to give.
    public func json(artworkTopic: (String) -> String) -> JSONValue {
        var artwork = JSONValue.null
        if let artworkKey, let format = artworkFormat {
            artwork = [
                "topic": .string(artworkTopic(artworkKey)), "mimeType": .string(format.mimeType),
                "width": .number(Double(format.width)), "height": .number(Double(format.height)),
            ]
        }
        return [
            "identifier": .string(identifier), "title": .string(title), "subtitle": JSONValue(subtitle),
            "artwork": artwork, "playbackProgress": .number(playbackProgress), "isContainer": .bool(isContainer),
            "isPlayable": .bool(isPlayable), "isStreamingContent": .bool(isStreamingContent),
            "isExplicitContent": .bool(isExplicitContent),
        ]
    }
}

/// One published tree node: what `P/content/tree/<path>` carries and `browse` answers.
public struct ContentTreeNode: Sendable, Hashable {
    public var indexPath: IndexPath
    /// The container; nil for the root.
    public var item: ContentItem?
    /// The container's identifier (`ContentItem.rootIdentifier` for the root).
    public var containerIdentifier: String
    /// The number of children a head unit may see (capped while limits are enforced).
    public var childCount: Int
    public var offset: Int
    public var children: [ContentItem]
    public var displaysPlaybackProgress: Bool
    public var version: Int

    /// The node's document without `version`, to tell whether its content changed.
    func content(artworkTopic: (String) -> String) -> JSONValue {
        var fields: [String: JSONValue] = [
            "indexPath": .array(indexPath.indices.map { .number(Double($0)) }),
            "childCount": .number(Double(childCount)), "offset": .number(Double(offset)),
            "children": .array(children.map { $0.json(artworkTopic: artworkTopic) }),
            "displaysPlaybackProgress": .bool(displaysPlaybackProgress),
        ]
        if let item { fields["item"] = item.json(artworkTopic: artworkTopic) }
        return .object(fields)
    }

    /// The full document, with `version`.
    public func json(artworkTopic: (String) -> String) -> JSONValue {
        guard case var .object(fields) = content(artworkTopic: artworkTopic) else { return .null }
        fields["version"] = .number(Double(version))
        return .object(fields)
    }
}
