import ContentTree
import Foundation
import Synchronization

/// The catalog's in-memory twin: a tree of items kept in a dictionary, with saved positions and feedback,
/// and changes announced the way the SQLite store announces them. Tests build it with `add(_:under:)` and
/// announce each change with the diff they expect the store to produce.
public final class InMemoryContentCatalog: ContentCatalog, Sendable {
    private struct State {
        var items: [String: ContentItem] = [:]
        var children: [String: [String]] = [:]
        var positions: [String: PlaybackPosition] = [:]
        var feedback: [String: ItemFeedback] = [:]
        var subscribers: [AsyncStream<CatalogDiff>.Continuation] = []
        var unreadable: Set<String> = []
        var saveDelay: Duration?
    }

    /// What reading an unreadable container throws, as a damaged file would.
    public struct ReadError: Error, Equatable {
        public var container: String
        public init(container: String) { self.container = container }
    }

    private let state = Mutex(State())

    public init() {}

    // MARK: - Building

    /// Adds (or replaces) an item and lists it last under `parent` (the root when nil).
    public func add(_ item: ContentItem, under parent: String = ContentItem.rootIdentifier) {
        state.withLock { state in
            state.items[item.identifier] = item
            state.children[parent, default: []].append(item.identifier)
        }
    }

    public func item(uri: String) async throws -> ContentItem? {
        state.withLock { state in state.items.values.first { $0.isPlayable && $0.uri == uri } }
    }

    /// Replaces an item's fields, wherever it is listed.
    public func update(_ item: ContentItem) {
        state.withLock { $0.items[item.identifier] = item }
    }

    /// Sets a container's children, in order.
    public func setChildren(_ identifiers: [String], of parent: String) {
        state.withLock { $0.children[parent] = identifiers }
    }

    /// Removes an item from every list and forgets it (and its children lists).
    public func remove(_ identifier: String) {
        state.withLock { state in
            state.items[identifier] = nil
            state.children[identifier] = nil
            for key in state.children.keys { state.children[key]?.removeAll { $0 == identifier } }
        }
    }

    /// Reading these containers' children fails from now on (none: all readable again).
    public func setUnreadable(_ containers: Set<String>) {
        state.withLock { $0.unreadable = containers }
    }

    /// Tells every `changes()` subscriber about a change.
    public func announce(_ diff: CatalogDiff) {
        let subscribers = state.withLock { $0.subscribers }
        for subscriber in subscribers { subscriber.yield(diff) }
    }

    // MARK: - ContentCatalog

    public func item(identifier: String) async throws -> ContentItem? {
        state.withLock { state in state.items[identifier].map { Self.withProgress($0, state.positions) } }
    }

    public func childCount(of containerIdentifier: String) async throws -> Int {
        state.withLock { $0.children[containerIdentifier]?.count ?? 0 }
    }

    public func children(of containerIdentifier: String, offset: Int, limit: Int) async throws -> ContentPage {
        try state.withLock { state throws(ReadError) in
            guard !state.unreadable.contains(containerIdentifier) else { throw ReadError(container: containerIdentifier) }
            let all = state.children[containerIdentifier] ?? []
            let start = max(0, offset)
            let end = min(all.count, start + max(0, limit))
            let items = start < end
                ? all[start..<end].compactMap { state.items[$0].map { Self.withProgress($0, state.positions) } } : []
            return ContentPage(containerIdentifier: containerIdentifier, childCount: all.count, offset: start, items: items)
        }
    }

    /// The store's rules on a dictionary: every word a word prefix of the title, artist or album (case and
    /// accents aside), titles equal to the text first, then titles holding every word; ties by identifier.
    public func search(_ text: String, limit: Int) async throws -> SearchResults {
        let words = Self.folded(text)
        guard !words.isEmpty else { return SearchResults(items: [], total: 0) }
        func holds(_ field: String?) -> Bool {
            let fieldWords = Self.folded(field ?? "")
            return words.allSatisfy { word in fieldWords.contains { $0.hasPrefix(word) } }
        }
        return state.withLock { state in
            let ranked = state.items.values.compactMap { item -> (Int, ContentItem)? in
                guard item.isPlayable || item.isContainer else { return nil }
                if Self.folded(item.title) == words { return (0, item) }
                if holds(item.title) { return (1, item) }
                let names = [item.artist, item.albumTitle].compactMap { $0 }.joined(separator: " ")
                return holds(names) ? (2, item) : nil
            }.sorted { ($0.0, $0.1.identifier) < ($1.0, $1.1.identifier) }
            let items = ranked.prefix(max(0, limit)).map { Self.withProgress($0.1, state.positions) }
            return SearchResults(items: Array(items), total: ranked.count)
        }
    }

    private static func folded(_ text: String) -> [String] {
        text.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil)
            .split { !$0.isLetter && !$0.isNumber }.map(String.init)
    }

    public func savePlaybackPosition(_ position: PlaybackPosition, for identifier: String) async throws {
        if let delay = state.withLock({ $0.saveDelay }) { try await Task.sleep(for: delay) }
        state.withLock { $0.positions[identifier] = position }
    }

    /// Makes each later save of a position take `delay` before it holds (nil: at once), as a loaded machine may.
    public func delaySaves(by delay: Duration?) {
        state.withLock { $0.saveDelay = delay }
    }

    public func playbackPosition(for identifier: String) async throws -> PlaybackPosition? {
        state.withLock { $0.positions[identifier] }
    }

    /// Whether a position is saved for `identifier`, for a test that must know without suspending.
    public func hasSavedPosition(_ identifier: String) -> Bool {
        state.withLock { $0.positions[identifier] != nil }
    }

    public func setFeedback(_ mark: FeedbackMark, active: Bool, for identifier: String) async throws {
        state.withLock { $0.feedback[identifier, default: ItemFeedback()].set(mark, active: active) }
    }

    public func setRating(_ rating: Double?, for identifier: String) async throws {
        state.withLock { $0.feedback[identifier, default: ItemFeedback()].rating = rating }
    }

    public func feedback(for identifier: String) async throws -> ItemFeedback {
        state.withLock { $0.feedback[identifier] ?? ItemFeedback() }
    }

    public func summary() async throws -> CatalogSummary {
        state.withLock { state in
            CatalogSummary(
                sources: 0, containers: state.items.values.filter(\.isContainer).count,
                playables: state.items.values.filter(\.isPlayable).count)
        }
    }

    public func changes() -> AsyncStream<CatalogDiff> {
        let (stream, continuation) = AsyncStream.makeStream(of: CatalogDiff.self)
        state.withLock { $0.subscribers.append(continuation) }
        return stream
    }

    private static func withProgress(_ item: ContentItem, _ positions: [String: PlaybackPosition]) -> ContentItem {
        var item = item
        if let position = positions[item.identifier] { item.playbackProgress = position.progress }
        return item
    }
}
