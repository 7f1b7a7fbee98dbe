import CMosquitto

/// MQTT 5 properties MediaNode reads and writes. Ignored on 3.1.1 connections.
public struct MQTTProperties: Sendable, Equatable {
    public var responseTopic: String?
    public var correlationData: [UInt8]?
    /// Seconds after which the broker discards an undelivered message.
    public var messageExpiry: UInt32?
    public var contentType: String?

    public init(responseTopic: String? = nil, correlationData: [UInt8]? = nil, messageExpiry: UInt32? = nil,
                contentType: String? = nil) {
        self.responseTopic = responseTopic
        self.correlationData = correlationData
        self.messageExpiry = messageExpiry
        self.contentType = contentType
    }

    public var isEmpty: Bool { self == MQTTProperties() }
}

/// An inbound message, copied out of libmosquitto's buffers.
public struct MQTTMessage: Sendable {
    public var topic: String
    public var payload: [UInt8]
    public var qos: Int
    public var retain: Bool
    public var properties: MQTTProperties
    /// When the message reached this process: a reply's latency is counted from here.
    public var receivedAt: ContinuousClock.Instant

    public init(topic: String, payload: [UInt8], qos: Int = 0, retain: Bool = false, properties: MQTTProperties = .init(),
                receivedAt: ContinuousClock.Instant = .now) {
        self.topic = topic
        self.payload = payload
        self.qos = qos
        self.retain = retain
        self.properties = properties
        self.receivedAt = receivedAt
    }
}

/// What the transport tells its owner, in the order it happened.
public enum MQTTEvent: Sendable {
    /// A (re)connection succeeded. The owner should republish its retained state; subscriptions
    /// registered with `subscribe` have already been renewed when `sessionPresent` is false.
    case connected(sessionPresent: Bool)
    case disconnected(reason: String)
    case message(MQTTMessage)
}

public enum MQTTError: Error, Sendable, Equatable, CustomStringConvertible {
    case invalidConfiguration(String)
    /// A libmosquitto call failed; `code` is its MOSQ_ERR_* value.
    case library(call: String, code: Int32, message: String)
    case notConnected
    case shutDown

    public var description: String {
        switch self {
        case let .invalidConfiguration(text): "invalid MQTT configuration: \(text)"
        case let .library(call, code, message): "\(call) failed (\(code)): \(message)"
        case .notConnected: "not connected to the broker"
        case .shutDown: "the MQTT client has been shut down"
        }
    }

    static func check(_ code: Int32, _ call: String) throws(MQTTError) {
        guard code != Int32(MOSQ_ERR_SUCCESS.rawValue) else { return }
        throw .library(call: call, code: code, message: Mosquitto.describe(code))
    }
}
