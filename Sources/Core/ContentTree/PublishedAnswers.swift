import MediaJSON
import Synchronization

/// A published node as a browse answers it: the document already on its topic, encoded once (S26).
public struct PublishedAnswer: Sendable {
    public var node: ContentTreeNode
    public var document: EncodedJSON
    /// Containers to prefetch (S28): named by the first browse that finds the node, empty afterwards.
    public var prefetch: [String]
}

/// The documents of the published nodes, for answering a repeated browse without entering the manager or
/// reading the catalog: a head unit showing a list again gets the bytes its topic already holds.
///
/// Threading: safe from any thread. The manager writes it in its turns. A catalog change or a saved
/// position drops the entries it may touch as soon as the node hears of it, before the coalesced flush
/// republishes (S27), so a browse in between renders from the catalog instead of answering stale bytes.
final class PublishedAnswers: Sendable {
    struct Entry: Sendable {
        var answer: PublishedAnswer
        /// The page size the node was rendered with: a browse's `limit`, or the configured one.
        var pageSize: Int
        var prefetchStarted = false
    }

    private let entries = Mutex<[IndexPath: Entry]>([:])

    /// The entry for a browse of `path` at `offset` with `pageSize`, if the published node is exactly that
    /// page; the first such browse takes the containers to prefetch.
    func answer(_ path: IndexPath, offset: Int, pageSize: Int) -> PublishedAnswer? {
        entries.withLock { entries in
            guard var entry = entries[path], entry.answer.node.offset == offset, entry.pageSize == pageSize else {
                return nil
            }
            var answer = entry.answer
            if entry.prefetchStarted {
                answer.prefetch = []
            } else {
                entry.prefetchStarted = true
                entries[path] = entry
            }
            return answer
        }
    }

    func store(_ answer: PublishedAnswer, pageSize: Int, prefetchStarted: Bool = false) {
        entries.withLock { entries in
            let started = prefetchStarted
                || (entries[answer.node.indexPath].map { $0.prefetchStarted && $0.answer.node == answer.node } ?? false)
            entries[answer.node.indexPath] = Entry(answer: answer, pageSize: pageSize, prefetchStarted: started)
        }
    }

    func contains(_ path: IndexPath) -> Bool { entries.withLock { $0[path] != nil } }

    func remove(_ path: IndexPath) { entries.withLock { _ = $0.removeValue(forKey: path) } }

    func removeAll() { entries.withLock { $0.removeAll() } }

    /// Drops the nodes of these containers and everything below them: a changed child list may put
    /// another container at a position below.
    func invalidate(containers: Set<String>) {
        guard !containers.isEmpty else { return }
        entries.withLock { entries in
            let roots = entries.values.filter { containers.contains($0.answer.node.containerIdentifier) }
                .map(\.answer.node.indexPath.indices)
            guard !roots.isEmpty else { return }
            entries = entries.filter { path, _ in !roots.contains { path.indices.starts(with: $0) } }
        }
    }

    /// Drops the nodes that display progress and list any of these items (their progress changed, S31).
    func invalidate(listing identifiers: Set<String>) {
        guard !identifiers.isEmpty else { return }
        entries.withLock { entries in
            // Only what lists them goes: a position saved on every pause must not copy every answer kept.
            var stale: [IndexPath] = []
            for (path, entry) in entries where entry.answer.node.displaysPlaybackProgress
                && entry.answer.node.children.contains(where: { identifiers.contains($0.identifier) }) {
                stale.append(path)
            }
            for path in stale { entries.removeValue(forKey: path) }
        }
    }
}
