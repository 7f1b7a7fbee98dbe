import MQTTTransport
import ServiceLifecycle

// MARK: - Home Assistant discovery

/// Publishes the discovery message and listens for Home Assistant's birth; clears a discovery message an
/// earlier run left that this run does not publish.
struct HomeAssistantService: Service {
    let ready: Latch
    let announcer: any HomeAssistantAnnouncing

    func run() async throws {
        await cancelWhenGracefulShutdown { [ready, announcer] in
            await ready.wait()
            await announcer.startHomeAssistant()
            await waitUntilCancelled()
        }
    }
}

/// What the Home Assistant service asks of the rest of the node.
protocol HomeAssistantAnnouncing: Sendable {
    /// Publishes discovery and subscribes to Home Assistant's birth; clears an earlier run's leftovers.
    func startHomeAssistant() async
}

extension Node: HomeAssistantAnnouncing {}

extension Node {
    /// The node's discovery, when it was started with `--homeassistant`.
    var homeAssistant: HomeAssistantDiscovery? {
        configuration.homeAssistantPrefix.map {
            HomeAssistantDiscovery(prefix: $0, nodeID: configuration.nodeID, topics: topics,
                                   textToSpeech: configuration.capabilities.textToSpeech)
        }
    }

    /// Publishes the discovery message and listens for Home Assistant's birth, with the flag; with or
    /// without it, clears a discovery message an earlier run left that this run does not publish (the
    /// flag dropped, another prefix or node id), which is remembered in the catalog file.
    func startHomeAssistant() async {
        let current = homeAssistant
        if let current {
            retained.publish(current.configTopic, current.document.jsonBytes)
            for topic in current.birthTopics {
                do {
                    try transport.subscribe(topic, qos: 1)
                } catch {
                    logger.error("cannot subscribe to Home Assistant's birth topic \(topic): \(error)")
                }
            }
        }
        guard let retainedBook else { return }
        let leftovers = await retainedBook.leftovers()
            .filter { HomeAssistantDiscovery.isConfigTopic($0) && $0 != current?.configTopic }
        guard !leftovers.isEmpty else { return }
        for topic in retained.clearLeftovers(leftovers).sorted() {
            logger.info("clearing the Home Assistant discovery an earlier run published", metadata: ["topic": "\(topic)"])
        }
    }

    /// Republishes discovery when Home Assistant says `online` on a birth topic: it may have started with
    /// an empty broker, or dropped the device. Returns whether the message was a birth message.
    func handleHomeAssistantBirth(_ message: MQTTMessage) -> Bool {
        // Cheap for the commands that pass here too: most topics fail the suffix test.
        guard configuration.homeAssistantPrefix != nil, message.topic.hasSuffix("/status"),
              let discovery = homeAssistant, discovery.birthTopics.contains(message.topic) else { return false }
        guard message.payload == Array("online".utf8) else { return true }
        logger.debug("Home Assistant came online on \(message.topic): republishing discovery")
        retained.republish(discovery.configTopic)
        return true
    }
}
