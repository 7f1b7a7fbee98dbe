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
        var fields: [String: JSONValue] = [
            "identifier": .string(identifier), "title": .string(title), "subtitle": JSONValue(subtitle),
            "artwork": artwork, "playbackProgress": .number(playbackProgress), "isContainer": .bool(isContainer),
            "isPlayable": .bool(isPlayable), "isStreamingContent": .bool(isStreamingContent),
            "isExplicitContent": .bool(isExplicitContent),
        ]
        if let status = shownDownloadStatus { fields["downloadStatus"] = .string(status.rawValue) }
        if let downloadProgress { fields["downloadProgress"] = .number(downloadProgress) }
        if let loudness = loudness?.published { fields["loudness"] = .number(loudness) }
        if let chapters = chaptersJSON { fields["chapters"] = chapters }
        return .object(fields)
    }

    /// `[{"title": ..., "startTime": ...}, ...]`, nil for an item without chapters.
    public var chaptersJSON: JSONValue? {
        guard let chapters, !chapters.isEmpty else { return nil }
        return .array(chapters.map { ["title": .string($0.title), "startTime": .number($0.startTime)] })
    }
}

extension ContentItem {
    /// `json(artworkTopic:)` written straight into bytes, keys in the order `jsonBytes` sorts them.
    func write(to writer: inout JSONByteWriter, artworkTopic: (String) -> String) {
        writer.raw("{\"artwork\":")
        writeArtwork(to: &writer, artworkTopic: artworkTopic)
        if let chapters, !chapters.isEmpty {
            writer.raw(",\"chapters\":[")
            for (index, chapter) in chapters.enumerated() {
                writer.raw(index == 0 ? "{\"startTime\":" : ",{\"startTime\":")
                writer.number(chapter.startTime)
                writer.raw(",\"title\":")
                writer.string(chapter.title)
                writer.raw("}")
            }
            writer.raw("]")
        }
        if let downloadProgress {
            writer.raw(",\"downloadProgress\":")
            writer.number(downloadProgress)
        }
        if let status = shownDownloadStatus {
            writer.raw(",\"downloadStatus\":")
            writer.string(status.rawValue)
        }
        writer.raw(",\"identifier\":")
        writer.string(identifier)
        writer.raw(",\"isContainer\":")
        writer.bool(isContainer)
        writer.raw(",\"isExplicitContent\":")
        writer.bool(isExplicitContent)
        writer.raw(",\"isPlayable\":")
        writer.bool(isPlayable)
        writer.raw(",\"isStreamingContent\":")
        writer.bool(isStreamingContent)
        if let loudness = loudness?.published {
            writer.raw(",\"loudness\":")
            writer.number(loudness)
        }
        writer.raw(",\"playbackProgress\":")
        writer.number(playbackProgress)
        writer.raw(",\"subtitle\":")
        writer.string(subtitle)
        writer.raw(",\"title\":")
        writer.string(title)
        writer.raw("}")
    }

    private func writeArtwork(to writer: inout JSONByteWriter, artworkTopic: (String) -> String) {
        guard let artworkKey, let format = artworkFormat else {
            writer.null()
            return
        }
        writer.raw("{\"height\":")
        writer.number(format.height)
        writer.raw(",\"mimeType\":")
        writer.string(format.mimeType)
        writer.raw(",\"topic\":")
        writer.string(artworkTopic(artworkKey))
        writer.raw(",\"width\":")
        writer.number(format.width)
        writer.raw("}")
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
    public func content(artworkTopic: (String) -> String) -> JSONValue {
        var fields: [String: JSONValue] = [
            "indexPath": .array(indexPath.indices.map { .number(Double($0)) }),
            "childCount": .number(Double(childCount)), "offset": .number(Double(offset)),
            "children": .array(children.map { $0.json(artworkTopic: artworkTopic) }),
            "displaysPlaybackProgress": .bool(displaysPlaybackProgress),
        ]
        if let item { fields["item"] = item.json(artworkTopic: artworkTopic) }
        return .object(fields)
    }

    /// `content(artworkTopic:).jsonBytes`, written directly: a first browse encodes a whole page of
    /// items, and through `JSONValue` that cost more than reading the page from the catalog.
    public func contentBytes(artworkTopic: (String) -> String) -> [UInt8] {
        var writer = JSONByteWriter(capacity: 256 + 240 * children.count)
        writer.raw("{\"childCount\":")
        writer.number(childCount)
        writer.raw(",\"children\":[")
        for (index, child) in children.enumerated() {
            if index > 0 { writer.raw(",") }
            child.write(to: &writer, artworkTopic: artworkTopic)
        }
        writer.raw("],\"displaysPlaybackProgress\":")
        writer.bool(displaysPlaybackProgress)
        writer.raw(",\"indexPath\":[")
        for (position, index) in indexPath.indices.enumerated() {
            if position > 0 { writer.raw(",") }
            writer.number(index)
        }
        writer.raw("]")
        if let item {
            writer.raw(",\"item\":")
            item.write(to: &writer, artworkTopic: artworkTopic)
        }
        writer.raw(",\"offset\":")
        writer.number(offset)
        writer.raw("}")
        return writer.bytes
    }

    /// The full document, with `version`.
    public func json(artworkTopic: (String) -> String) -> JSONValue {
        guard case var .object(fields) = content(artworkTopic: artworkTopic) else { return .null }
        fields["version"] = .number(Double(version))
        return .object(fields)
    }
}
