import MPRIS
import MQTTTransport
import MediaJSON
import RemoteCommands

extension CommandDispatcher: MPRISCommandDoor {
    /// Routes the request onto the lanes MQTT commands take, as if it had arrived from the broker.
    func submit(command: String, payload: JSONValue, answer: @escaping @Sendable (CommandReply) -> Void) {
        inbound.route(localReplies.message(topic: topics.command(command), payload: payload.jsonBytes, answer: answer), to: self)
    }
}
