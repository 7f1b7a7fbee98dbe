/// The configurable capability parameters published with each command (S7).
public struct CommandCapabilities: Sendable, Equatable {
    /// Skip intervals in seconds; the first is the default for skipForward/skipBackward.
    public var preferredIntervals: [Double]
    /// The rates a head unit can show; "next" cycles through them in this order (S16).
    public var supportedPlaybackRates: [Double]
    /// Every rate the player accepts; a superset of `supportedPlaybackRates` (S17).
    public var playerPlaybackRates: [Double]
    public var minimumRating: Double
    public var maximumRating: Double
    /// How far `changeVolume` "up" / "down" moves the level.
    public var volumeStep: Double
    /// Whether `announce` can speak `text` (eSpeak NG is installed).
    public var textToSpeech: Bool
    /// Keyed by command name: like, dislike, bookmark.
    public var feedbackTitles: [String: (title: String, shortTitle: String)]

    public init(
        preferredIntervals: [Double] = [15],
        supportedPlaybackRates: [Double] = [1.0, 1.5, 2.0, 0.5],
        playerPlaybackRates: [Double] = [0.5, 0.75, 1.0, 1.25, 1.5, 2.0],
        minimumRating: Double = 0, maximumRating: Double = 5, volumeStep: Double = 0.05, textToSpeech: Bool = false,
        feedbackTitles: [String: (title: String, shortTitle: String)] = [
            "like": ("Like", "Like"), "dislike": ("Dislike", "Dislike"), "bookmark": ("Bookmark", "Save"),
        ]
    ) {
        self.preferredIntervals = preferredIntervals
        self.supportedPlaybackRates = supportedPlaybackRates
        self.playerPlaybackRates = Array(Set(playerPlaybackRates).union(supportedPlaybackRates)).sorted()
        self.minimumRating = minimumRating
        self.maximumRating = maximumRating
        self.feedbackTitles = feedbackTitles
        self.volumeStep = volumeStep
        self.textToSpeech = textToSpeech
    }

    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.preferredIntervals == rhs.preferredIntervals && lhs.supportedPlaybackRates == rhs.supportedPlaybackRates
            && lhs.playerPlaybackRates == rhs.playerPlaybackRates && lhs.minimumRating == rhs.minimumRating
            && lhs.maximumRating == rhs.maximumRating && lhs.volumeStep == rhs.volumeStep
            && lhs.textToSpeech == rhs.textToSpeech
            && lhs.feedbackTitles.mapValues { [$0.title, $0.shortTitle] }
                == rhs.feedbackTitles.mapValues { [$0.title, $0.shortTitle] }
    }

    /// The rate after `current` in the head-unit cycle, wrapping (S16: 1.0 -> 1.5 -> 2.0 -> 0.5 -> 1.0).
    public func nextSupportedRate(after current: Double) -> Double? {
        guard !supportedPlaybackRates.isEmpty else { return nil }
        guard let index = supportedPlaybackRates.firstIndex(where: { abs($0 - current) < 0.001 }) else {
            return nil
        }
        return supportedPlaybackRates[(index + 1) % supportedPlaybackRates.count]
    }

    public func isSupportedByHeadUnit(_ rate: Double) -> Bool {
        supportedPlaybackRates.contains { abs($0 - rate) < 0.001 }
    }

    public func isAcceptedByPlayer(_ rate: Double) -> Bool {
        playerPlaybackRates.contains { abs($0 - rate) < 0.001 }
    }
}
