/// `--metrics-interval` and `--metrics-listen` (topics.md "Health").
public struct MetricsSettings: Sendable, Equatable {
    /// Time between two `P/metrics`; nil publishes none.
    public var interval: Duration?
    /// `HOST:PORT` to serve the Prometheus text on; nil serves none.
    public var listen: String?

    /// The daemon's `--metrics-interval` unless given, and how often quantiles are updated when only the
    /// Prometheus scrape asks for them.
    public static let defaultInterval = Duration.seconds(60)

    public init(interval: Duration? = nil, listen: String? = nil) {
        self.interval = interval
        self.listen = listen
    }

    public var isEnabled: Bool { interval != nil || listen != nil }

    /// `HOST:PORT` split at its last colon; an IPv6 host in brackets loses them.
    public static func hostAndPort(_ listen: String) -> (host: String, port: Int)? {
        guard let colon = listen.lastIndex(of: ":"), let port = Int(listen[listen.index(after: colon)...]),
              (0...65535).contains(port)
        else { return nil }
        var host = String(listen[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        return host.isEmpty ? nil : (host, port)
    }
}
