import Playback
import RemoteCommands

// MARK: - Playable content (S20-S32), search and queue editing

extension CommandTable {
    static let content: [Entry] = [playItem, prepareQueue, browse, contentItem, search, addToQueue, removeFromQueue, moveQueueItem]

    static let playItem: Entry = RemoteCommand<ContentReference>(
        "playItem",
        fields: [
            .identifier(), .init("indexPath", .indexPath),
            .init("url", .string, schema: [
                "pattern": "^(file|http|https)://", "maxLength": 4096,
                "description": "The catalog's item at this location, else the URL itself as a queue of one (MPRIS's OpenUri).",
            ]),
        ],
        documentation: .init(
            payload: "`identifier`, or `indexPath` (array of integers), or `url` (a `file://`, `http://` or `https://` URL: the catalog's item there, else the URL alone, as a queue of one, titled by its own tags); the item's container becomes the queue; answered only once audio is playing. The `identifier` of a container (a search result) plays its first item (an artist: their first album's)",
            summary: "Plays an item (by identifier, index path or URL) with its container as the queue; answered once audio plays (S24).",
            exactlyOneOf: ["identifier", "indexPath", "url"])
    ) { fields, _ in
        // Every field is checked even when the first is enough: a wrong type is never passed over.
        let identifier = try fields.optionalString("identifier")
        let path = try fields.optionalIndexPath("indexPath")
        let url = try fields.optionalString("url")
        if let identifier { return .identifier(identifier) }
        if let path { return .indexPath(path) }
        if let url {
            let scheme = url.prefix { $0 != ":" }.lowercased()
            guard ["file", "http", "https"].contains(scheme), url.count > scheme.count + 3, url.count <= 4096 else {
                throw CommandValidationError("'url' must be a file://, http:// or https:// URL of at most 4096 characters")
            }
            return .url(url)
        }
        throw CommandValidationError("playItem needs 'identifier', 'indexPath' or 'url'")
    }.handled(by: \.catalogQueue) { reference, queue in await queue.playItem(reference) }

    static let prepareQueue: Entry = RemoteCommand<[String]>(
        "prepareQueue", fields: [.init("identifiers", .strings, required: true)],
        documentation: .init(
            payload: "`identifiers` (array of strings): loads without playing; the next `play` starts it",
            summary: "Loads items as the queue, paused (S32).")
    ) { fields, _ in try fields.requiredStrings("identifiers") }
        .handled(by: \.catalogQueue) { identifiers, queue in await queue.prepareQueue(identifiers) }

    static let browse: Entry = RemoteCommand<BrowseRequest>(
        "browse", lane: .content,
        fields: [
            .init("indexPath", .indexPath, required: true), .init("offset", .number, schema: ["type": "integer", "minimum": 0]),
            .init("limit", .number, schema: ["type": "integer", "minimum": 1]),
        ],
        documentation: .init(
            payload: "`indexPath`, optional `offset`, `limit`: answers with the tree node and prefetches its children",
            summary: "Answers one page of a tree node (data: a TreeNode) and prefetches its children (S28).")
    ) { fields, _ in
        BrowseRequest(indexPath: try fields.optionalIndexPath("indexPath") ?? [],
                      offset: try fields.optionalCount("offset"), limit: try fields.optionalCount("limit"))
    }.handled(by: \.content, immediate: { request, content in content.publishedPage(request) }) { request, content in
        await content.browse(request)
    }

    static let contentItem: Entry = RemoteCommand<String>(
        "contentItem", lane: .content, fields: [.identifier(required: true)],
        documentation: .init(payload: "`identifier`: answers with the item; a playable with chapters also carries `chapters` (see Chapters)", summary: "Answers one content item (data: a ContentItem).")
    ) { fields, _ in try fields.requiredString("identifier") }
        .handled(by: \.content) { identifier, content in await content.contentItem(identifier) }

    /// Answers from the local catalog only, so it works with no network (version 1.1).
    static let search: Entry = RemoteCommand<SearchRequest>(
        "search", lane: .content,
        fields: [
            .init("query", .string, required: true, schema: ["minLength": 1, "maxLength": 200]),
            .init("limit", .number, schema: ["type": "integer", "minimum": 1, "default": 20]),
        ],
        documentation: .init(
            payload: "`query` (a string of 1 to 200 characters), optional `limit` (default 20): answers `{\"items\": [...], \"total\": n}`, the best matches from the local catalog (below)",
            summary: "Searches the local catalog; data: a SearchResult. Version 1.1.")
    ) { fields, _ in
        let query = try fields.requiredString("query")
        let limit = try fields.optionalCount("limit") ?? 20
        guard !query.allSatisfy(\.isWhitespace) else { throw CommandValidationError("'query' must not be empty") }
        guard query.count <= 200 else { throw CommandValidationError("'query' must be at most 200 characters, got \(query.count)") }
        return SearchRequest(query: query, limit: limit)
    }.handled(by: \.content) { request, content in await content.search(request) }

    // MARK: - Queue editing (version 1.1)

    static let addToQueue: Entry = RemoteCommand<QueueAddRequest>(
        "addToQueue",
        fields: [.init("identifiers", .strings, required: true), .choice("position", QueueAddRequest.Position.self, schema: ["default": "end"])],
        documentation: .init(
            payload: "`identifiers` (array of strings: playable items, or containers for their playable children in order), optional `position`: `\"next\"` (after the current item) or `\"end\"` (the default); an unknown identifier is `noSuchContent` and nothing is inserted; with nothing loaded the items become the queue, paused (as `prepareQueue`)",
            summary: "Inserts playable items next or at the end. Version 1.1.")
    ) { fields, _ in
        let identifiers = try fields.requiredStrings("identifiers")
        guard !identifiers.isEmpty else { throw CommandValidationError("'identifiers' is empty") }
        let position = try fields.optionalString("position").map { _ in try fields.requiredEnum("position", QueueAddRequest.Position.self) }
        return QueueAddRequest(identifiers: identifiers, position: position ?? .end)
    }.handled(by: \.catalogQueue) { request, queue in await queue.addToQueue(request) }

    /// The 0-based entry of the play order to remove.
    static let removeFromQueue: Entry = RemoteCommand<Int>(
        "removeFromQueue", fields: [.init("index", .number, required: true, schema: ["type": "integer", "minimum": 0])],
        documentation: .init(
            payload: "`index` (0-based, in `P/queue` order): removing the current item moves to the next one, playing or paused as before (at the end: stopped)",
            summary: "Removes one queue entry. Version 1.1.")
    ) { fields, _ in try fields.requiredCount("index") }
        .handled(by: \.playback) { index, playback in .result(await playback.removeFromQueue(at: index)) }

    static let moveQueueItem: Entry = RemoteCommand<QueueMoveRequest>(
        "moveQueueItem",
        fields: [
            .init("from", .number, required: true, schema: ["type": "integer", "minimum": 0]),
            .init("to", .number, required: true, schema: ["type": "integer", "minimum": 0]),
        ],
        documentation: .init(
            payload: "`from`, `to` (0-based, in `P/queue` order): the playing item keeps playing", summary: "Moves one queue entry. Version 1.1.")
    ) { fields, _ in QueueMoveRequest(from: try fields.requiredCount("from"), to: try fields.requiredCount("to")) }
        .handled(by: \.playback) { move, playback in .result(await playback.moveQueueItem(from: move.from, to: move.to)) }
}
