/// The labels the node's figures are counted under: the parts that count make their swift-metrics handles
/// with these, and `P/metrics` and the Prometheus text read them back, so a name lives here only.
///
/// They are Prometheus names already (`_total` on counters), so the scrape shows them as written.
public enum MetricName {
    /// Replies sent, by the `status` dimension (a `CommandStatus` raw value).
    public static let commands = "medianode_commands_total"
    public static let statusDimension = "status"
    /// From a command's arrival at the node to its reply written to the broker (a timer).
    public static let reply = "medianode_reply"
    /// Seconds the audio played (a floating-point counter: pauses and stops do not count).
    public static let secondsPlayed = "medianode_playback_seconds_total"
    /// The audio ran dry and waited for data (buffering while playing).
    public static let stalls = "medianode_playback_stalls_total"
    public static let playbackErrors = "medianode_playback_errors_total"
    /// Connections a broker accepted, the first included.
    public static let brokerConnects = "medianode_broker_connects_total"
    /// Connections accepted by another broker than the one before (fail-over and fail-back).
    public static let brokerFailovers = "medianode_broker_failovers_total"
    /// Connections taken over by another client with the node's client id (a second node with its id).
    public static let brokerTakeovers = "medianode_broker_takeovers_total"
    /// 1 while another client with the node's client id keeps taking its connection over (a gauge).
    public static let clientIDConflict = "medianode_broker_client_id_conflict"
    /// Playable items in the catalog cache (a gauge).
    public static let catalogPlayables = "medianode_catalog_playables"
    public static let downloadsFinished = "medianode_downloads_finished_total"
    public static let downloadsFailed = "medianode_downloads_failed_total"
    public static let downloadedBytes = "medianode_downloaded_bytes_total"

    // Figures read when rendered, not counted: gauges set just before each rendering.
    static let catalogBytes = "medianode_catalog_bytes"
    static let uptime = "medianode_uptime_seconds"
    static let residentKiB = "medianode_resident_kib"
    static let cpuSeconds = "medianode_cpu_seconds"
    /// The last interval's reply times, by the `quantile` dimension (0.5, 0.99, 1 for the maximum).
    static let replyMilliseconds = "medianode_reply_last_interval_milliseconds"
}
