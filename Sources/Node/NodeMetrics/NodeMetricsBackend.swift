import CoreMetrics
import Prometheus
import Synchronization

/// One node's swift-metrics backend: the factory its counters are made with, and what they counted.
///
/// Per node, not bootstrapped process-wide: the rig and the tests run many nodes in one process, and
/// each node's `P/metrics` counts its own commands. Handles are made with `factory: backend` (swift-metrics'
/// explicit factory), so nothing here touches `MetricsSystem`. Counting is lock-free; making a handle
/// takes a lock, which happens when a node is built, not per command.
///
/// Each handle also feeds a Prometheus handler in the node's own `PrometheusCollectorRegistry`, which
/// renders the scrape's text.
public final class NodeMetricsBackend: MetricsFactory, Sendable {
    /// The registry behind the Prometheus text: this node's alone.
    let registry = PrometheusCollectorRegistry()
    private let prometheus: PrometheusMetricsFactory
    private let handlers = Mutex(Handlers())
    /// The reply times of the last interval closed, in microseconds.
    let lastInterval = Mutex<IntervalHistogram.Quantiles?>(nil)

    private struct Handlers {
        var counters: [String: CountingHandler] = [:]
        var gauges: [String: GaugeHandler] = [:]
        var timers: [String: IntervalTimerHandler] = [:]
    }

    public init() {
        prometheus = PrometheusMetricsFactory(registry: registry)
    }

    /// One key per label and dimensions, so two handles made with the same ones count together.
    static func key(_ label: String, _ dimensions: [(String, String)]) -> String {
        dimensions.sorted { $0.0 < $1.0 }.reduce(label) { $0 + "|\($1.0)=\($1.1)" }
    }

    // MARK: - MetricsFactory

    public func makeCounter(label: String, dimensions: [(String, String)]) -> any CounterHandler {
        handlers.withLock { handlers in
            let key = Self.key(label, dimensions)
            if let existing = handlers.counters[key] { return existing }
            let made = CountingHandler(exported: prometheus.makeCounter(label: label, dimensions: dimensions))
            handlers.counters[key] = made
            return made
        }
    }

    public func makeRecorder(label: String, dimensions: [(String, String)], aggregate: Bool) -> any RecorderHandler {
        handlers.withLock { handlers in
            let key = Self.key(label, dimensions)
            if let existing = handlers.gauges[key] { return existing }
            // Every recorder of the node is a level (catalog size, process figures): a gauge either way.
            let made = GaugeHandler(exported: prometheus.makeRecorder(label: label, dimensions: dimensions, aggregate: false))
            handlers.gauges[key] = made
            return made
        }
    }

    public func makeTimer(label: String, dimensions: [(String, String)]) -> any TimerHandler {
        handlers.withLock { handlers in
            let key = Self.key(label, dimensions)
            if let existing = handlers.timers[key] { return existing }
            let made = IntervalTimerHandler()
            handlers.timers[key] = made
            return made
        }
    }

    // The node's handles live as long as the node: nothing to give back early.
    public func destroyCounter(_ handler: any CounterHandler) {}
    public func destroyRecorder(_ handler: any RecorderHandler) {}
    public func destroyTimer(_ handler: any TimerHandler) {}

    // MARK: - Reading back

    /// What the counter with this label and dimensions counted; 0 when none was made.
    public func counter(_ label: String, _ dimensions: [(String, String)] = []) -> Int64 {
        handlers.withLock { $0.counters[Self.key(label, dimensions)] }?.value ?? 0
    }

    /// The gauge's last value; nil when none was made or set.
    public func gauge(_ label: String, _ dimensions: [(String, String)] = []) -> Double? {
        handlers.withLock { $0.gauges[Self.key(label, dimensions)] }?.value
    }

    /// The timer's values since the last drain, in microseconds, and empties it.
    public func drainTimer(_ label: String) -> IntervalHistogram.Quantiles? {
        handlers.withLock { $0.timers[Self.key(label, [])] }?.histogram.drain()
    }
}
