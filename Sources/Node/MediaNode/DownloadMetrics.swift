import CoreMetrics
import NodeMetrics

/// The download manager's outcomes, counted as the node hears of them.
struct DownloadMetrics: Sendable {
    let finished: Counter
    let failed: Counter
    let bytes: Counter

    init(factory: any MetricsFactory) {
        finished = Counter(label: MetricName.downloadsFinished, factory: factory)
        failed = Counter(label: MetricName.downloadsFailed, factory: factory)
        bytes = Counter(label: MetricName.downloadedBytes, factory: factory)
    }
}
