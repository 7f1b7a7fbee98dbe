import Logging
import ServiceLifecycle

// MARK: - Home Assistant discovery

/// Publishes the discovery message and listens for Home Assistant's birth, with `--homeassistant`; with or
/// without it, clears a discovery message an earlier run left that this run does not publish (the flag
/// dropped, another prefix or node id), which is remembered in the catalog file.
struct HomeAssistantService: Service {
    let ready: Latch
    let presence: HomeAssistantPresence
    let transport: any MessageTransport
    let retainedBook: RetainedTopicBook?

    func run() async throws {
        await cancelWhenGracefulShutdown { [self] in
            await ready.wait()
            await start()
            await waitUntilCancelled()
        }
    }

    private func start() async {
        let current = presence.discovery
        let logger = presence.logger
        if let current {
            presence.retained.publish(current.configTopic, current.document.jsonBytes)
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
        for topic in presence.retained.clearLeftovers(leftovers).sorted() {
            logger.info("clearing the Home Assistant discovery an earlier run published", metadata: ["topic": "\(topic)"])
        }
    }
}
