/// The MQTT protocol revision spoken to the broker.
public enum MQTTProtocolVersion: String, Sendable, CaseIterable {
    case v5 = "5"
    case v311 = "3.1.1"
}

/// A message the broker publishes for us if we vanish without saying goodbye.
public struct MQTTWill: Sendable, Equatable {
    public var topic: String
    public var payload: [UInt8]
    public var qos: Int
    public var retain: Bool
    public init(topic: String, payload: [UInt8], qos: Int = 1, retain: Bool = true) {
        self.topic = topic
        self.payload = payload
        self.qos = qos
        self.retain = retain
    }
}

/// TLS material for `mqtts://`. Without a CA file the system's CA directory is used.
public struct MQTTTLSConfiguration: Sendable, Equatable {
    public var caFile: String?
    public var caDirectory: String?
    public var certificateFile: String?
    public var keyFile: String?
    public init(caFile: String? = nil, caDirectory: String? = nil, certificateFile: String? = nil, keyFile: String? = nil) {
        self.caFile = caFile
        self.caDirectory = caDirectory
        self.certificateFile = certificateFile
        self.keyFile = keyFile
    }
}

public struct MQTTConfiguration: Sendable {
    public var broker: BrokerURL
    public var clientID: String
    public var protocolVersion: MQTTProtocolVersion
    /// Seconds between keep-alive pings; the broker declares us gone (and sends the will) after 1.5x this.
    public var keepAlive: Int
    public var will: MQTTWill?
    public var tls: MQTTTLSConfiguration
    /// Reconnect back-off: first delay and ceiling, in seconds; the delay doubles up to the ceiling.
    public var reconnectDelay: (initial: Int, maximum: Int)

    public init(
        broker: BrokerURL, clientID: String, protocolVersion: MQTTProtocolVersion = .v5, keepAlive: Int = 30,
        will: MQTTWill? = nil, tls: MQTTTLSConfiguration = .init(), reconnectDelay: (initial: Int, maximum: Int) = (1, 30)
    ) {
        self.broker = broker
        self.clientID = clientID
        self.protocolVersion = protocolVersion
        self.keepAlive = keepAlive
        self.will = will
        self.tls = tls
        self.reconnectDelay = reconnectDelay
    }
}
