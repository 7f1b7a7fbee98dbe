import ContentTree

/// What the feedback commands tell the listening history: the marks of an item changed.
protocol FeedbackObserver: Sendable {
    /// Returns at once.
    func feedbackChanged(_ identifier: String, to feedback: ItemFeedback)
}
