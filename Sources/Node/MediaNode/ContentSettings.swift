/// How the node serves the content tree; the defaults follow the issue (root + 2 levels, pages of 100).
public struct ContentSettings: Sendable {
    /// Levels below the root published at start.
    public var publishedDepth: Int
    /// Children per published node.
    public var pageSize: Int
    /// How long catalog changes are gathered before one flush (S27).
    public var coalescingWindow: Duration
    /// How often the playing item's position is saved (S31); it is saved on pause, stop and shutdown too.
    public var progressInterval: Duration
    /// While an item plays, the lists that show its progress are republished only once its position has
    /// moved this far in playback time and by `progressStepFraction` of its length from what they show: a
    /// progress bar does not visibly move for less, and a podcast list is then republished at most once a
    /// minute. Pause, stop and the end of an item republish at once.
    public var progressStep: Duration
    public var progressStepFraction: Double
    /// How long playItem waits for audio before it gives up (S24).
    public var playItemTimeout: Duration

    public init(publishedDepth: Int = 2, pageSize: Int = 100, coalescingWindow: Duration = .milliseconds(50),
                progressInterval: Duration = .seconds(10), playItemTimeout: Duration = .seconds(10),
                progressStep: Duration = .seconds(60), progressStepFraction: Double = 0.01) {
        self.publishedDepth = publishedDepth
        self.pageSize = pageSize
        self.coalescingWindow = coalescingWindow
        self.progressInterval = progressInterval
        self.progressStep = progressStep
        self.progressStepFraction = progressStepFraction
        self.playItemTimeout = playItemTimeout
    }
}
