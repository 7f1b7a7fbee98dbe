import CoreMetrics

/// A node without metrics: every handle is swift-metrics' no-op.
struct NoMetrics: MetricsRecording {
    var factory: any MetricsFactory { NOOPMetricsHandler.instance }
}
