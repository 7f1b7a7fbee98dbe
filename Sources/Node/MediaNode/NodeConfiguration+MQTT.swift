import MQTTTransport
import NodeMetrics

extension NodeConfiguration {
    /// The MQTT client settings, counting connections in `metrics` when the node has them.
    public func mqttConfiguration(metrics: NodeMetricsBackend?) -> MQTTConfiguration {
        var configuration = mqttConfiguration
        configuration.connectionMetrics = metrics.map(MQTTConnectionMetrics.init(countingIn:))
        return configuration
    }
}
