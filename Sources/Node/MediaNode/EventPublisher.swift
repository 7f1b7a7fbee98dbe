import Logging
import MQTTTransport
import MediaJSON
import RemoteCommands

/// `P/commands`, marked dirty: the document is made once per flush, however many changes came before it.
struct CapabilitiesPublisher: Sendable {
    let retained: RetainedPublisher
    let topic: String
    let commandCenter: RemoteCommandCenter

    func mark() {
        retained.publish(topic, rendering: { [commandCenter] in commandCenter.capabilitiesDocument.jsonBytes })
    }
}

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
