import ContentTree
import Synchronization

/// Items' positions the node knows and the catalog does not hold yet: the place of what plays, as the
/// lists showing it should move, and positions handed to the save batcher and not yet written. Playback
/// progress owns it; the tree and the queue read the catalog through it (see `ProgressOverlayCatalog`).
///
/// Steady playback thus writes its place only to the node state file (every progress interval); the
/// catalog's own row is written when the item stops, and the lists still move every visible step.
final class UnsavedPositions: Sendable {
    private let positions = Mutex<[String: PlaybackPosition]>([:])

    func set(_ position: PlaybackPosition, for identifier: String) {
        positions.withLock { $0[identifier] = position }
    }

    func position(of identifier: String) -> PlaybackPosition? { positions.withLock { $0[identifier] } }

    /// The catalog holds these now: each is forgotten here unless a newer one came meanwhile.
    func written(_ saved: [String: PlaybackPosition]) {
        positions.withLock { positions in
            for (identifier, position) in saved where (positions[identifier]?.updatedAt ?? .infinity) <= position.updatedAt {
                positions.removeValue(forKey: identifier)
            }
        }
    }

    /// `item` with the progress of an unsaved position, when there is one.
    func overlaid(_ item: ContentItem) -> ContentItem {
        guard let position = position(of: item.identifier) else { return item }
        var shown = item
        shown.playbackProgress = PlaybackPosition(
            elapsed: position.elapsed, duration: position.duration ?? item.duration, updatedAt: position.updatedAt).progress
        return shown
    }
}

/// The catalog as the tree reads it: every item carries the progress of its unsaved position, if any.
struct ProgressOverlayCatalog: ContentCatalog {
    let base: any ContentCatalog
    let unsaved: UnsavedPositions

    func item(identifier: String) async throws -> ContentItem? {
        try await base.item(identifier: identifier).map(unsaved.overlaid)
    }

    func items(identifiers: [String]) async throws -> [String: ContentItem] {
        try await base.items(identifiers: identifiers).mapValues(unsaved.overlaid)
    }

    // Forwarded, not left to the protocol's defaults: those know no item by its file (`OpenUri`, `playItem`
    // with a `url`) and read a whole item for its chapters.
    func item(uri: String) async throws -> ContentItem? {
        try await base.item(uri: uri).map(unsaved.overlaid)
    }

    func chapters(of identifier: String) async throws -> [ContentChapter]? {
        try await base.chapters(of: identifier)
    }

    func childCount(of containerIdentifier: String) async throws -> Int {
        try await base.childCount(of: containerIdentifier)
    }

    func children(of containerIdentifier: String, offset: Int, limit: Int) async throws -> ContentPage {
        var page = try await base.children(of: containerIdentifier, offset: offset, limit: limit)
        page.items = page.items.map(unsaved.overlaid)
        return page
    }

    func search(_ text: String, limit: Int) async throws -> SearchResults {
        var results = try await base.search(text, limit: limit)
        results.items = results.items.map(unsaved.overlaid)
        return results
    }

    func savePlaybackPosition(_ position: PlaybackPosition, for identifier: String) async throws {
        try await base.savePlaybackPosition(position, for: identifier)
    }

    func playbackPosition(for identifier: String) async throws -> PlaybackPosition? {
        if let position = unsaved.position(of: identifier) { return position }
        return try await base.playbackPosition(for: identifier)
    }

    func setFeedback(_ mark: FeedbackMark, active: Bool, for identifier: String) async throws {
        try await base.setFeedback(mark, active: active, for: identifier)
    }

    func setRating(_ rating: Double?, for identifier: String) async throws { try await base.setRating(rating, for: identifier) }

    func feedback(for identifier: String) async throws -> ItemFeedback { try await base.feedback(for: identifier) }

    func summary() async throws -> CatalogSummary { try await base.summary() }

    func changes() -> AsyncStream<CatalogDiff> { base.changes() }
}
