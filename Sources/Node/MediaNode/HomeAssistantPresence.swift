import Logging
import MQTTTransport

/// The node's discovery, when it was started with `--homeassistant`, and the answer to Home Assistant's
/// birth messages.
struct HomeAssistantPresence: Sendable {
    let discovery: HomeAssistantDiscovery?
    let retained: RetainedPublisher
    let logger: Logger

    init(configuration: NodeConfiguration, retained: RetainedPublisher, logger: Logger) {
        discovery = configuration.homeAssistantPrefix.map {
            HomeAssistantDiscovery(prefix: $0, nodeID: configuration.nodeID, topics: configuration.topics,
                                   textToSpeech: configuration.capabilities.textToSpeech)
        }
        self.retained = retained
        self.logger = logger
    }

    /// Republishes discovery when Home Assistant says `online` on a birth topic: it may have started with
    /// an empty broker, or dropped the device. Returns whether the message was a birth message.
    func handleBirth(_ message: MQTTMessage) -> Bool {
        // Cheap for the commands that pass here too: most topics fail the suffix test.
        guard let discovery, message.topic.hasSuffix("/status"), discovery.birthTopics.contains(message.topic) else {
            return false
        }
        guard message.payload == Array("online".utf8) else { return true }
        logger.debug("Home Assistant came online on \(message.topic): republishing discovery")
        retained.republish(discovery.configTopic)
        return true
    }
}
