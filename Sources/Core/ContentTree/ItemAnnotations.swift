/// Where playback of an item stopped; kept per identifier, so it survives catalog refreshes (S31).
public struct PlaybackPosition: Sendable, Hashable, Codable {
    /// Seconds from the start.
    public var elapsed: Double
    /// Seconds, when known; it turns `elapsed` into `playbackProgress`.
    public var duration: Double?
    /// Seconds since the epoch.
    public var updatedAt: Double

    public init(elapsed: Double, duration: Double?, updatedAt: Double) {
        self.elapsed = elapsed
        self.duration = duration
        self.updatedAt = updatedAt
    }

    /// 0...1 when the duration is known, else -1 (none), as ContentItem.playbackProgress wants it.
    public var progress: Double {
        guard let duration, duration > 0 else { return -1 }
        return min(1, max(0, elapsed / duration))
    }
}

/// The feedback commands' marks (like, dislike, bookmark; S1, S7).
public enum FeedbackMark: String, Sendable, Hashable, Codable, CaseIterable {
    case like, dislike, bookmark
}

/// The feedback state of one item, which the feedback commands' `isActive` reflects for the current item.
public struct ItemFeedback: Sendable, Hashable, Codable {
    public var liked: Bool
    public var disliked: Bool
    public var bookmarked: Bool
    public var rating: Double?

    public init(liked: Bool = false, disliked: Bool = false, bookmarked: Bool = false, rating: Double? = nil) {
        self.liked = liked
        self.disliked = disliked
        self.bookmarked = bookmarked
        self.rating = rating
    }

    public func isActive(_ mark: FeedbackMark) -> Bool {
        switch mark {
        case .like: liked
        case .dislike: disliked
        case .bookmark: bookmarked
        }
    }

    /// Applies one command: like clears dislike and the reverse, since a head unit shows one or the other.
    public mutating func set(_ mark: FeedbackMark, active: Bool) {
        switch mark {
        case .like:
            liked = active
            if active { disliked = false }
        case .dislike:
            disliked = active
            if active { liked = false }
        case .bookmark:
            bookmarked = active
        }
    }
}
