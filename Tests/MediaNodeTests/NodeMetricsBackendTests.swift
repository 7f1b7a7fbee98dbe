import CoreMetrics
import MediaJSON
import NodeMetrics
import Testing

@Suite("Each node counts into its own metrics backend")
struct NodeMetricsBackendTests {
    @Test("an interval's reply times come back as p50, p99 and an exact maximum, and the next interval starts empty")
    func intervalQuantiles() {
        let histogram = IntervalHistogram()
        for microseconds in 1...1000 { histogram.record(microseconds: microseconds) }
        histogram.record(microseconds: 123_456)
        let quantiles = try? #require(histogram.drain())
        #expect(quantiles?.count == 1001)
        #expect(abs((quantiles?.p50 ?? 0) - 501) / 501 < 0.04, "p50 \(quantiles?.p50 ?? 0)")
        #expect(abs((quantiles?.p99 ?? 0) - 991) / 991 < 0.04, "p99 \(quantiles?.p99 ?? 0)")
        #expect(quantiles?.maximum == 123_456)
        #expect(histogram.drain() == nil)
    }

    @Test("two nodes in one process count apart, and handles made twice with one label count together")
    func perNodeBackends() {
        let first = NodeMetricsBackend()
        let second = NodeMetricsBackend()
        let dimensions = [(MetricName.statusDimension, "success")]
        Counter(label: MetricName.commands, dimensions: dimensions, factory: first).increment(by: 3)
        Counter(label: MetricName.commands, dimensions: dimensions, factory: first).increment()
        Counter(label: MetricName.commands, dimensions: dimensions, factory: second).increment()
        #expect(first.counter(MetricName.commands, dimensions) == 4)
        #expect(second.counter(MetricName.commands, dimensions) == 1)
    }

    @Test("P/metrics has exactly the contract's members, every status listed, and the last interval's reply times")
    func documentShape() throws {
        let backend = NodeMetricsBackend()
        Counter(label: MetricName.commands, dimensions: [(MetricName.statusDimension, "commandFailed")], factory: backend)
            .increment()
        let timer = CoreMetrics.Timer(label: MetricName.reply, factory: backend)
        timer.recordNanoseconds(1_500_000)
        timer.recordNanoseconds(500_000)
        backend.closeInterval()
        let moment = HealthMoment(timestamp: "2026-11-28T08:00:00Z", uptimeSeconds: 61.7, intervalSeconds: 60,
                                  catalogBytes: 4096, process: ProcessFigures(residentKiB: 51_000, cpuSeconds: 41.23))
        let document = backend.document(at: moment)
        #expect(Set(document.objectValue?.keys.map { $0 } ?? []) == [
            "timestamp", "uptimeSeconds", "intervalSeconds", "commands", "replyMs", "playback", "broker", "catalog",
            "downloads", "rssKiB", "cpuSeconds",
        ])
        #expect(Set(document["commands"]?.objectValue?.keys.map { $0 } ?? []) == Set(NodeMetricsBackend.commandStatuses))
        #expect(document["commands"]?["commandFailed"] == 1)
        #expect(document["uptimeSeconds"] == 61)
        #expect(document["cpuSeconds"]?.numberValue == 41.2)
        #expect(document["catalog"]?["bytes"] == 4096)
        let p50 = try #require(document["replyMs"]?["p50"]?.numberValue)
        #expect(p50 > 0.45 && p50 < 0.55, "p50 \(p50) ms")
        #expect(document["replyMs"]?["max"]?.numberValue == 1.5)
    }

    @Test("the Prometheus text carries the counters with their status label and the interval's quantiles")
    func prometheusText() {
        let backend = NodeMetricsBackend()
        Counter(label: MetricName.commands, dimensions: [(MetricName.statusDimension, "success")], factory: backend)
            .increment(by: 7)
        backend.closeInterval()
        let text = String(decoding: backend.prometheusText(at: HealthMoment(
            timestamp: "2026-11-28T08:00:00Z", uptimeSeconds: 1, intervalSeconds: 60, catalogBytes: 0,
            process: ProcessFigures(residentKiB: 1, cpuSeconds: 0))), as: UTF8.self)
        #expect(text.contains(#"medianode_commands_total{status="success"} 7"#), "\(text)")
        #expect(text.contains("# TYPE medianode_commands_total counter"))
        #expect(text.contains(#"medianode_reply_last_interval_milliseconds{quantile="0.99"}"#))
        #expect(text.contains("medianode_resident_kib 1"))
    }
}
