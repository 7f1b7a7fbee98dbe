import CoreMetrics
import MQTTTransport
import NodeMetrics

extension MQTTConnectionMetrics {
    /// The client's connection counters, under the node's names, in `backend`.
    public init(countingIn backend: NodeMetricsBackend) {
        self.init(connects: Counter(label: MetricName.brokerConnects, factory: backend),
                  failovers: Counter(label: MetricName.brokerFailovers, factory: backend),
                  takeovers: Counter(label: MetricName.brokerTakeovers, factory: backend),
                  clientIDConflict: Gauge(label: MetricName.clientIDConflict, factory: backend))
    }
}
