import MediaJSON
import Prometheus

/// What `P/metrics` says besides the counters: when, for how long, and the figures read at the moment.
public struct HealthMoment: Sendable {
    /// ISO 8601 in UTC.
    public var timestamp: String
    public var uptimeSeconds: Double
    public var intervalSeconds: Double
    /// The catalog file's size on disk, with its write-ahead log.
    public var catalogBytes: Int64
    public var process: ProcessFigures

    public init(timestamp: String, uptimeSeconds: Double, intervalSeconds: Double, catalogBytes: Int64,
                process: ProcessFigures) {
        self.timestamp = timestamp
        self.uptimeSeconds = uptimeSeconds
        self.intervalSeconds = intervalSeconds
        self.catalogBytes = catalogBytes
        self.process = process
    }
}

extension NodeMetricsBackend {
    /// The command statuses `P/metrics` always lists, zero or not (CommandStatus's raw values).
    public static let commandStatuses = [
        "success", "commandFailed", "noSuchContent", "noActionableNowPlayingItem", "deviceNotFound",
    ]

    /// Ends an interval: the reply times recorded since the last call become the interval's, for
    /// `P/metrics` and for the scrape's quantile gauges.
    @discardableResult
    public func closeInterval() -> IntervalHistogram.Quantiles? {
        let quantiles = drainTimer(MetricName.reply)
        lastInterval.withLock { $0 = quantiles }
        for (quantile, value) in [("0.5", quantiles?.p50), ("0.99", quantiles?.p99), ("1", quantiles?.maximum)] {
            makeRecorder(label: MetricName.replyMilliseconds, dimensions: [("quantile", quantile)], aggregate: false)
                .record((value ?? 0) / 1000)
        }
        return quantiles
    }

    /// The `P/metrics` document of topics.md "Health", with the last interval closed by `closeInterval`.
    public func document(at moment: HealthMoment) -> JSONValue {
        func count(_ label: String, _ dimensions: [(String, String)] = []) -> JSONValue {
            .number(Double(counter(label, dimensions)))
        }
        let reply = lastInterval.withLock { $0 }
        func milliseconds(_ microseconds: Double?) -> JSONValue {
            .number(((microseconds ?? 0) / 10).rounded() / 100)
        }
        var commands: [String: JSONValue] = [:]
        for status in Self.commandStatuses {
            commands[status] = count(MetricName.commands, [(MetricName.statusDimension, status)])
        }
        return [
            "timestamp": .string(moment.timestamp),
            "uptimeSeconds": .number(moment.uptimeSeconds.rounded(.down)),
            "intervalSeconds": .number(moment.intervalSeconds),
            "commands": .object(commands),
            "replyMs": ["p50": milliseconds(reply?.p50), "p99": milliseconds(reply?.p99), "max": milliseconds(reply?.maximum)],
            "playback": [
                "secondsPlayed": count(MetricName.secondsPlayed), "stalls": count(MetricName.stalls),
                "errors": count(MetricName.playbackErrors),
            ],
            "broker": [
                "connects": count(MetricName.brokerConnects), "failovers": count(MetricName.brokerFailovers),
                "takeovers": count(MetricName.brokerTakeovers), "clientIdConflict": .bool(gauge(MetricName.clientIDConflict) == 1),
            ],
            "catalog": [
                "playables": .number(gauge(MetricName.catalogPlayables) ?? 0),
                "bytes": .number(Double(moment.catalogBytes)),
            ],
            "downloads": [
                "finished": count(MetricName.downloadsFinished), "failed": count(MetricName.downloadsFailed),
                "bytes": count(MetricName.downloadedBytes),
            ],
            "rssKiB": .number(Double(moment.process.residentKiB)),
            "cpuSeconds": .number((moment.process.cpuSeconds * 10).rounded() / 10),
        ]
    }

    /// The same figures as Prometheus text (exposition format 0.0.4), for `--metrics-listen`.
    public func prometheusText(at moment: HealthMoment) -> [UInt8] {
        // Levels read now, set just before rendering: the scrape sees them as of its own moment.
        for (label, value) in [
            (MetricName.uptime, moment.uptimeSeconds), (MetricName.catalogBytes, Double(moment.catalogBytes)),
            (MetricName.residentKiB, Double(moment.process.residentKiB)), (MetricName.cpuSeconds, moment.process.cpuSeconds),
        ] {
            makeRecorder(label: label, dimensions: [], aggregate: false).record(value)
        }
        return registry.emitToBuffer()
    }
}
