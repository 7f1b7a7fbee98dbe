import ContentTree
import MediaJSON
import RemoteCommands

// MARK: - browse, contentItem, search

/// What the content commands ask of the tree and the catalog cache: a node of the tree (from the published
/// page when it is one, S26), an item, a search. Answers only; the tree's state is the manager's.
struct ContentCommands: Sendable {
    let content: NodeContent
    let treeArtwork: TreeArtworkPublisher
    let topics: TopicLayout

    private var manager: PlayableContentManager { content.manager }

    /// A browse of a page the tree already published gets that page's document (S26), on the transport's
    /// thread when nothing waits before it; nil when the page must be read.
    func publishedPage(_ request: BrowseRequest) -> CommandResult? {
        guard let answer = manager.publishedAnswer(IndexPath(request.indexPath), offset: request.offset, limit: request.limit)
        else { return nil }
        content.prefetch(answer.prefetch)
        return .success(encodedData: answer.document)
    }

    func browse(_ request: BrowseRequest) async -> CommandResult {
        if let answer = publishedPage(request) { return answer }
        do {
            switch try await manager.browse(IndexPath(request.indexPath), offset: request.offset, limit: request.limit) {
            case let .noSuchContent(message):
                return CommandResult(.noSuchContent, message: message)
            case let .node(node, update, prefetch):
                content.prefetch(prefetch)
                return .success(encodedData: update.document(for: node, artworkTopic: topics.artwork))
            }
        } catch {
            return .failed("could not read the catalog: \(error)")
        }
    }

    func contentItem(_ identifier: String) async -> CommandResult {
        do {
            guard let item = try await manager.item(identifier: identifier) else {
                return CommandResult(.noSuchContent, message: "no item '\(identifier)'")
            }
            if let key = item.artworkKey { treeArtwork.publish([key]) }
            return .success(data: item.json(artworkTopic: topics.artwork))
        } catch {
            return .failed("could not read the catalog: \(error)")
        }
    }

    func search(_ request: SearchRequest) async -> CommandResult {
        do {
            let results = try await manager.search(request.query, limit: request.limit)
            treeArtwork.publish(results.items.compactMap(\.artworkKey))
            let items = results.items.map { $0.json(artworkTopic: topics.artwork) }
            return .success(data: ["items": .array(items), "total": .number(Double(results.total))])
        } catch {
            return .failed("could not read the catalog: \(error)")
        }
    }
}
