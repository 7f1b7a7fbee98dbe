import CoreMetrics

/// How the node's parts reach the metrics: the factory their swift-metrics handles are made with. They
/// count where things happen; only the service reads what they counted.
protocol MetricsRecording: Sendable {
    var factory: any MetricsFactory { get }
}
