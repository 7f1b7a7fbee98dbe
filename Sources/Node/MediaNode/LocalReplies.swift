import Foundation
import MQTTTransport
import RemoteCommands
import Synchronization

// MARK: - MPRIS's way in: the commands' own lanes

/// Requests that came in through another front door than MQTT, by the token their message carries, each
/// waiting for its one reply.
final class LocalReplies: Sendable {
    private let waiting = Mutex<[[UInt8]: @Sendable (CommandReply) -> Void]>([:])

    /// A message for command `name` whose reply `answer` gets: its correlation data is a token no MQTT
    /// client can guess, and it names no response topic, so its reply goes to `P/result` and to `answer`.
    func message(topic: String, payload: [UInt8], answer: @escaping @Sendable (CommandReply) -> Void) -> MQTTMessage {
        let token = Array("local:\(UUID().uuidString)".utf8)
        waiting.withLock { $0[token] = answer }
        return MQTTMessage(topic: topic, payload: payload, properties: MQTTProperties(correlationData: token))
    }

    /// Hands `reply` to whoever waits for the reply to `message`, if anyone does.
    func deliver(_ reply: CommandReply, to message: MQTTMessage) {
        guard message.properties.responseTopic == nil, let token = message.properties.correlationData,
              let answer = waiting.withLock({ $0.removeValue(forKey: token) }) else { return }
        answer(reply)
    }
}
