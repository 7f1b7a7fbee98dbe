import Foundation
import ContentTree
import Playback
import RemoteCommands

// MARK: - playItem, prepareQueue, addToQueue

/// The queue made from the catalog: the items the content commands name become queue items (a downloaded
/// copy in place of the network, S31's saved place) and go to the playback controller, which owns the queue.
struct CatalogQueue: Sendable {
    let content: NodeContent
    let playback: PlaybackController
    let queueItems: QueueItemMaker

    /// S24: the item's container becomes the queue; success only once audio really plays. A URL the catalog
    /// does not know plays alone, as a queue of one.
    func playItem(_ reference: ContentReference) async -> CommandResult {
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
    func prepareQueue(_ identifiers: [String]) async -> CommandResult {
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
        try await queueItems.queueItem(item, container: container, resume: resume, heldAt: resume ? heldPlace(of: item) : nil)
    }

    /// Where the controller holds `item` paused. That place is the newest: the playback observers hand a pause's
    /// place to the catalog only after the pause is answered, and on a loaded machine a playItem of the same
    /// item right after it read the catalog first and started the item over.
    func heldPlace(of item: ContentItem) -> PlaybackPosition? {
        guard let (_, snapshot) = playback.latestSnapshot, snapshot.item?.identifier == item.identifier,
              snapshot.state == .paused || snapshot.state == .interrupted else { return nil }
        return PlaybackPosition(elapsed: snapshot.elapsed, duration: snapshot.duration ?? item.duration, updatedAt: snapshot.timestamp)
    }

    /// Resolves every identifier before inserting anything: one unknown identifier and nothing changes.
    func addToQueue(_ request: QueueAddRequest) async -> CommandResult {
        var added: [QueueItem] = []
        do {
            for identifier in request.identifiers {
                guard let item = try await content.manager.item(identifier: identifier) else {
                    return CommandResult(.noSuchContent, message: "no item '\(identifier)'")
                }
                if item.isPlayable, item.uri != nil {
                    added.append(try await queueItem(item, container: item.containerIdentifier, resume: false))
                } else if item.isContainer {
                    let children = try await content.playableChildren(of: item)
                    guard !children.isEmpty else { return .failed("'\(identifier)' holds nothing playable") }
                    for child in children {
                        added.append(try await queueItem(child, container: item.identifier, resume: false))
                    }
                } else {
                    return .failed("'\(identifier)' is not playable")
                }
            }
        } catch {
            return .failed("could not read the catalog: \(error)")
        }
        return CommandResult.result(await playback.addToQueue(added, request.position == .next ? .afterCurrent : .atEnd))
    }
}
