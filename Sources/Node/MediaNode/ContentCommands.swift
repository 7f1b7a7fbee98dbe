import Foundation
import ContentTree
import MediaJSON
import Playback
import RemoteCommands

// MARK: - browse, contentItem, search, playItem, prepareQueue

/// The commands on the content tree: browse, contentItem and search on the cache, and (when there is
/// audio to play) playItem, prepareQueue and the queue edits, which make queue items of its items.
struct ContentCommands: Sendable {
    let commandCenter: RemoteCommandCenter
    let content: NodeContent
    let playback: PlaybackController?
    let queueItems: QueueItemMaker
    let treeArtwork: TreeArtworkPublisher
    let topics: TopicLayout

    /// Registers the content commands; playItem and prepareQueue only when there is audio to play.
    func handle() {
        let content = content
        let manager = content.manager
        let artworkTopic: @Sendable (String) -> String = { [topics] in topics.artwork($0) }
        // A browse that changes nothing gets the document its topic already holds (S26), on the
        // transport's thread when nothing waits before it.
        let published: @Sendable (BrowseRequest) -> CommandResult? = { request in
            guard let answer = manager.publishedAnswer(
                IndexPath(request.indexPath), offset: request.offset, limit: request.limit)
            else { return nil }
            content.prefetch(answer.prefetch)
            return .success(encodedData: answer.document)
        }
        commandCenter.addHandler(for: .browse, immediate: published) { request in
            if let answer = published(request) { return answer }
            do {
                switch try await manager.browse(IndexPath(request.indexPath), offset: request.offset, limit: request.limit) {
                case let .noSuchContent(message):
                    return CommandResult(.noSuchContent, message: message)
                case let .node(node, update, prefetch):
                    content.prefetch(prefetch)
                    return .success(encodedData: update.document(for: node, artworkTopic: artworkTopic))
                }
            } catch {
                return .failed("could not read the catalog: \(error)")
            }
        }
        commandCenter.addHandler(for: .contentItem) { [treeArtwork] identifier in
            do {
                guard let item = try await manager.item(identifier: identifier) else {
                    return CommandResult(.noSuchContent, message: "no item '\(identifier)'")
                }
                if let key = item.artworkKey { treeArtwork.publish([key]) }
                return .success(data: item.json(artworkTopic: artworkTopic))
            } catch {
                return .failed("could not read the catalog: \(error)")
            }
        }
        commandCenter.addHandler(for: .search) { [treeArtwork] request in
            do {
                let results = try await manager.search(request.query, limit: request.limit)
                treeArtwork.publish(results.items.compactMap(\.artworkKey))
                let items = results.items.map { $0.json(artworkTopic: artworkTopic) }
                return .success(data: ["items": .array(items), "total": .number(Double(results.total))])
            } catch {
                return .failed("could not read the catalog: \(error)")
            }
        }
        guard let playback else { return }
        commandCenter.addHandler(for: .playItem) { [self] reference in
            await playItem(reference, content: content, playback: playback)
        }
        commandCenter.addHandler(for: .prepareQueue) { [self] identifiers in
            await prepareQueue(identifiers, content: content, playback: playback)
        }
        handleQueueEditingCommands(playback: playback)
    }

    /// S24: the item's container becomes the queue; success only once audio really plays. A URL the catalog
    /// does not know plays alone, as a queue of one.
    func playItem(_ reference: ContentReference, content: NodeContent, playback: PlaybackController) async -> CommandResult {
        let name: String, queue: [QueueItem], start: Int, context: [String]
        let started = Eventual<PlaybackOutcome>()
        do {
            // The catalog's item, its container and its place there; nil for a URL the catalog does not know.
            let chosen: (item: ContentItem, container: String?, position: Int?)?
            switch reference {
            case let .identifier(identifier):
                guard let found = try await content.manager.item(identifier: identifier) else {
                    return CommandResult(.noSuchContent, message: "no item '\(identifier)'")
                }
                // A container (a search result: an album, an artist, a show) plays from its first playable.
                let (first, above) = found.isContainer && !found.isPlayable
                    ? try await firstPlayable(in: found, catalog: content.manager.catalog) ?? (found, []) : (found, [])
                let container = above.last ?? first.containerIdentifier
                chosen = (first, container, nil)
                context = above.isEmpty ? container.map { [$0] } ?? [] : above
            case let .indexPath(path):
                guard let resolved = try await content.manager.resolve(IndexPath(path)), let found = resolved.item else {
                    return CommandResult(.noSuchContent, message: "no item at index path \(path)")
                }
                chosen = (found, resolved.containerIdentifier, path.last)
                context = Array(resolved.identifiers.dropLast())
            case let .url(url):
                chosen = try await catalogItem(at: url).map { ($0, $0.containerIdentifier, nil) }
                context = chosen?.container.map { [$0] } ?? []
            }
            if let (item, container, position) = chosen {
                guard item.isPlayable, item.uri != nil else { return .failed("'\(item.identifier)' is not playable") }
                name = item.identifier
                (queue, start) = try await queueItems(around: item, in: container, at: position)
            } else if case let .url(url) = reference {
                (name, queue, start) = (url, [Self.queueItem(url: url)], 0)
            } else {
                return .failed("nothing to play")
            }
            let outcome = await playback.setQueue(queue, startAt: start, play: true, context: context) { started.resolve($0) }
            guard outcome.isSuccess else { return CommandResult.result(outcome) }
        } catch {
            return .failed("could not read the catalog: \(error)")
        }
        // The queue is in place, so later commands act on it; the answer waits for the sound without
        // holding them up. Another playItem, stop or pause before it starts answers this one truthfully.
        let timeout = content.settings.playItemTimeout
        return .later {
            guard let outcome = await started.value(within: timeout) else {
                return .failed("'\(name)' did not start playing within \(timeout)")
            }
            return CommandResult.result(outcome)
        }
    }

    /// The catalog's playable item at `url`, as given or with its path spelled as the catalog spells it
    /// (`file:///a%20b.ogg` and `file:///a b.ogg` are one file).
    func catalogItem(at url: String) async throws -> ContentItem? {
        let catalog = content.manager.catalog
        if let found = try await catalog.item(uri: url) { return found }
        guard let parsed = URL(string: url) ?? URL(string: url.addingPercentEncoding(withAllowedCharacters: .urlFragmentAllowed) ?? ""),
              parsed.isFileURL else { return nil }
        let normalized = URL(fileURLWithPath: parsed.path).absoluteString
        return normalized == url ? nil : try await catalog.item(uri: normalized)
    }

    /// A URL outside the catalog as a queue item, named by the URL; its title and the rest come from the
    /// stream's own tags.
    static func queueItem(url: String) -> QueueItem {
        QueueItem(identifier: url, uri: URL(string: url).flatMap { $0.isFileURL ? URL(fileURLWithPath: $0.path).absoluteString : nil } ?? url)
    }

    /// The first playable of a container with the containers down to it: an album's or a show's first
    /// item, or the first item of an artist's first album that has one. Nil when there is none.
    func firstPlayable(in container: ContentItem, catalog: any ContentCatalog) async throws -> (ContentItem, [String])? {
        let page = try await catalog.children(of: container.identifier, offset: 0, limit: 100)
        if let item = page.items.first(where: { $0.isPlayable && $0.uri != nil }) { return (item, [container.identifier]) }
        for child in page.items where child.isContainer {
            let inner = try await catalog.children(of: child.identifier, offset: 0, limit: 100)
            if let item = inner.items.first(where: { $0.isPlayable && $0.uri != nil }) {
                return (item, [container.identifier, child.identifier])
            }
        }
        return nil
    }

    /// S32: loads the named items as the queue without playing; the next play starts it.
    func prepareQueue(_ identifiers: [String], content: NodeContent, playback: PlaybackController) async -> CommandResult {
        guard !identifiers.isEmpty else { return .failed("'identifiers' is empty") }
        var queue: [QueueItem] = []
        do {
            for identifier in identifiers {
                guard let item = try await content.manager.item(identifier: identifier) else {
                    return CommandResult(.noSuchContent, message: "no item '\(identifier)'")
                }
                guard item.isPlayable, item.uri != nil else { return .failed("'\(identifier)' is not playable") }
                queue.append(try await queueItem(item, container: item.containerIdentifier, resume: queue.isEmpty))
            }
        } catch {
            return .failed("could not read the catalog: \(error)")
        }
        return CommandResult.result(await playback.prepareQueue(queue))
    }

    /// The playables of `container` around `item` (at most 1000), and where the item is among them.
    func queueItems(around item: ContentItem, in container: String?, at position: Int?) async throws -> ([QueueItem], Int) {
        let catalog = content.manager.catalog
        guard let container else { return ([try await queueItem(item, container: nil, resume: true)], 0) }
        let window = 1000
        let offset = max(0, (position ?? 0) - window / 2)
        let page = try await catalog.children(of: container, offset: position == nil ? 0 : offset, limit: window)
        let playables = page.items.filter { $0.isPlayable && $0.uri != nil }
        guard let start = playables.firstIndex(where: { $0.identifier == item.identifier }) else {
            return ([try await queueItem(item, container: container, resume: true)], 0)
        }
        var queue: [QueueItem] = []
        for (index, entry) in playables.enumerated() {
            queue.append(try await queueItem(entry, container: container, resume: index == start))
        }
        return (queue, start)
    }

    func queueItem(_ item: ContentItem, container: String?, resume: Bool) async throws -> QueueItem {
        try await queueItems.queueItem(item, container: container, resume: resume)
    }
}
