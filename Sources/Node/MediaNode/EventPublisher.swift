import Logging
import MediaJSON
import MQTTTransport

/// Non-retained events on `P/events`: each part of the node that reports something holds one. An event's
/// `type` is always one of `NodeEvent`'s, named there once.
struct EventPublisher: Sendable {
    let transport: any MessageTransport
    let topic: String
    let logger: Logger

    func publish(_ type: NodeEvent, _ fields: [String: JSONValue] = [:]) {
        var event = fields
        event["type"] = .string(type.rawValue)
        do {
            try transport.publish(topic: topic, payload: JSONValue.object(event).jsonBytes, qos: 1, retain: false,
                                  properties: MQTTProperties(contentType: "application/json"))
        } catch {
            logger.debug("event not sent: \(error)")
        }
    }
}
