import ContentTree
import Logging

/// Feedback marks and ratings per item (like, dislike, bookmark, rating): written through to the
/// catalog when there is one, so they survive restarts, and kept in memory when there is not.
actor FeedbackBook {
    private let catalog: (any ContentCatalog)?
    /// Told of each mark once it is kept (the listening history lists Favorites from them).
    private let observer: (any FeedbackObserver)?
    private let logger: Logger
    private var cache: [String: ItemFeedback] = [:]

    init(catalog: (any ContentCatalog)?, observer: (any FeedbackObserver)? = nil, logger: Logger) {
        self.catalog = catalog
        self.observer = observer
        self.logger = logger
    }

    func feedback(for identifier: String) async -> ItemFeedback {
        if let cached = cache[identifier] { return cached }
        let stored = (try? await catalog?.feedback(for: identifier)) ?? ItemFeedback()
        cache[identifier] = stored
        return stored
    }

    /// Sets or clears a mark; returns the item's feedback afterwards.
    func set(_ mark: FeedbackMark, active: Bool, for identifier: String) async throws -> ItemFeedback {
        var feedback = await feedback(for: identifier)
        try await catalog?.setFeedback(mark, active: active, for: identifier)
        feedback.set(mark, active: active)
        cache[identifier] = feedback
        observer?.feedbackChanged(identifier, to: feedback)
        return feedback
    }

    func setRating(_ rating: Double, for identifier: String) async throws {
        var feedback = await feedback(for: identifier)
        try await catalog?.setRating(rating, for: identifier)
        feedback.rating = rating
        cache[identifier] = feedback
    }
}
