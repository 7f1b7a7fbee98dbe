import Logging
import MediaJSON
import MQTTTransport

/// Non-retained events on `P/events`: each part of the node that reports something holds one.
struct EventPublisher: Sendable {
    let transport: any MessageTransport
    let topic: String
    let logger: Logger

    func publish(_ event: JSONValue) {
        do {
            try transport.publish(topic: topic, payload: event.jsonBytes, qos: 1, retain: false,
                                  properties: MQTTProperties(contentType: "application/json"))
        } catch {
            logger.debug("event not sent: \(error)")
        }
    }
}
