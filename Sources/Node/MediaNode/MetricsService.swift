import CoreMetrics
import Foundation
import Logging
import NodeMetrics
import Playback
import ServiceLifecycle
import Synchronization

/// Publishes the node's health: `P/metrics` (retained) at once after `online` and every interval, and the
/// Prometheus text on `--metrics-listen`.
///
/// `P/metrics` is a document the retained publisher renders when it sends it: the copy sent with every
/// (re)connection's `online` carries the figures of that moment, not those of up to an interval before,
/// and it is the only one sent then (a second publish on the connection would send it twice at once).
///
/// Owns the node's metrics backend (`NodeMetricsBackend`), which the others reach only as a factory
/// (`MetricsRecording`), and follows playback as a `PlaybackObserver` for the seconds played, the stalls
/// and the errors. Placed right after the transport, so it stops just before it: its last `P/metrics`
/// goes out while the connection is still there.
final class MetricsService: Service, MetricsRecording, PlaybackObserver {
    let backend: NodeMetricsBackend
    private let settings: MetricsSettings
    private let retained: RetainedPublisher
    private let topic: String
    /// The transport's: `online` and the initial state are marked, so `P/metrics` follows them.
    private let ready: Latch
    private let catalogFile: String?
    private let logger: Logger
    private let started = ContinuousClock.now
    private let secondsPlayed: FloatingPointCounter
    private let stalls: Counter
    private let errors: Counter
    /// Since when the audio plays, while it does.
    private let playingSince = Mutex<ContinuousClock.Instant?>(nil)

    init(backend: NodeMetricsBackend, settings: MetricsSettings, retained: RetainedPublisher, topic: String,
         ready: Latch, catalogFile: String?, logger: Logger) {
        self.backend = backend
        self.settings = settings
        self.retained = retained
        self.topic = topic
        self.ready = ready
        self.catalogFile = catalogFile
        self.logger = logger
        secondsPlayed = FloatingPointCounter(label: MetricName.secondsPlayed, factory: backend)
        stalls = Counter(label: MetricName.stalls, factory: backend)
        errors = Counter(label: MetricName.playbackErrors, factory: backend)
    }

    var factory: any MetricsFactory { backend }

    func run() async throws {
        let listener = try startListener()
        defer { listener?.stop() }
        await cancelWhenGracefulShutdown { [self] in
            await ready.wait()
            let interval = settings.interval ?? MetricsSettings.defaultInterval
            if settings.interval != nil { mark() }
            while !Task.isCancelled {
                do { try await Task.sleep(for: interval) } catch { break }
                backend.closeInterval()
                if settings.interval != nil { mark() }
            }
        }
    }

    /// Marks `P/metrics`: the retained publisher renders it from what the node counted when it sends it, and
    /// again on each (re)connection.
    func mark() {
        retained.publish(topic, rendering: { [self] in backend.document(at: moment()).jsonBytes })
    }

    /// The figures read at this moment, the seconds played so far included.
    func moment() -> HealthMoment {
        settlePlaying()
        let uptime = ContinuousClock.now - started
        return HealthMoment(
            timestamp: NodeInfo.utcTimestamp(Date()),
            uptimeSeconds: Double(uptime.components.seconds) + Double(uptime.components.attoseconds) / 1e18,
            intervalSeconds: settings.interval.map(Self.seconds) ?? 0,
            catalogBytes: catalogFile.map(Self.fileBytes) ?? 0, process: .read())
    }

    private func startListener() throws -> MetricsHTTPListener? {
        guard let listen = settings.listen else { return nil }
        guard let (host, port) = MetricsSettings.hostAndPort(listen) else {
            throw MetricsHTTPListener.ListenError("--metrics-listen: '\(listen)' is not HOST:PORT")
        }
        let listener = try MetricsHTTPListener(host: host, port: port) { [self] in backend.prometheusText(at: moment()) }
        logger.info("Prometheus text on http://\(listen.replacingOccurrences(of: ":\(port)", with: ":\(listener.port)"))/metrics")
        return listener
    }

    /// The catalog file with its write-ahead log.
    static func fileBytes(_ path: String) -> Int64 {
        [path, path + "-wal"].reduce(0) { total, file in
            let size = (try? FileManager.default.attributesOfItem(atPath: file)[.size] as? NSNumber)?.int64Value
            return total + (size ?? 0)
        }
    }

    // MARK: - PlaybackObserver

    func playbackChanged(_ snapshot: PlaybackSnapshot, itemChanged: Bool = false) async {
        let now = ContinuousClock.now
        let played = playingSince.withLock { since -> Duration? in
            defer { since = snapshot.state == .playing ? (since ?? now) : nil }
            return snapshot.state == .playing ? nil : since.map { now - $0 }
        }
        if let played { secondsPlayed.increment(by: Self.seconds(played)) }
    }

    func playbackReported(_ event: PlaybackEvent) async {
        switch event {
        case .error: errors.increment()
        case .stalled: stalls.increment()
        case .trackStarted, .trackEnded, .seeked, .output: break
        }
    }

    /// Counts the time played so far while the audio plays on.
    private func settlePlaying() {
        let now = ContinuousClock.now
        let played = playingSince.withLock { since -> Duration? in
            guard let start = since else { return nil }
            since = now
            return now - start
        }
        if let played { secondsPlayed.increment(by: Self.seconds(played)) }
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}
