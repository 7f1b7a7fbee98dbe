import CoreMetrics

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
    /// The brokers in order of preference: the client connects to the first that answers, moves to the
    /// next when a connection is lost, and comes back to the first when it answers again (fail-back).
    public var brokers: [BrokerURL]
    public var clientID: String
    public var protocolVersion: MQTTProtocolVersion
    /// Seconds between keep-alive pings; the broker declares us gone (and sends the will) after 1.5x this.
    public var keepAlive: Int
    public var will: MQTTWill?
    public var tls: MQTTTLSConfiguration
    /// Reconnect back-off: first delay and ceiling, in seconds; the delay doubles up to the ceiling.
    public var reconnectDelay: (initial: Int, maximum: Int)
    /// Filters (and their QoS) subscribed on every connection: a connection counts as up, and
    /// `.connected` is reported, only once the broker has granted each of them.
    public var subscriptions: [String: Int]
    /// While connected to any broker but the first, how often the first is tried.
    public var failbackInterval: Duration
    /// Where accepted connections are counted, when the owner counts them.
    public var connectionMetrics: MQTTConnectionMetrics?

    public init(
        broker: BrokerURL, clientID: String, protocolVersion: MQTTProtocolVersion = .v5, keepAlive: Int = 30,
        will: MQTTWill? = nil, tls: MQTTTLSConfiguration = .init(), reconnectDelay: (initial: Int, maximum: Int) = (1, 30)
    ) {
        self.init(brokers: [broker], clientID: clientID, protocolVersion: protocolVersion, keepAlive: keepAlive,
                  will: will, tls: tls, reconnectDelay: reconnectDelay)
    }

    public init(
        brokers: [BrokerURL], clientID: String, protocolVersion: MQTTProtocolVersion = .v5, keepAlive: Int = 30,
        will: MQTTWill? = nil, tls: MQTTTLSConfiguration = .init(), reconnectDelay: (initial: Int, maximum: Int) = (1, 30),
        subscriptions: [String: Int] = [:], failbackInterval: Duration = .seconds(30)
    ) {
        self.brokers = brokers
        self.clientID = clientID
        self.protocolVersion = protocolVersion
        self.keepAlive = keepAlive
        self.will = will
        self.tls = tls
        self.reconnectDelay = reconnectDelay
        self.subscriptions = subscriptions
        self.failbackInterval = failbackInterval
    }

    /// The first (preferred) broker.
    public var broker: BrokerURL { brokers[0] }
}

/// The counters a client adds to as its connections come up: the owner makes them, with its own names
/// and metrics factory, and reads them back.
public struct MQTTConnectionMetrics: Sendable {
    /// Every connection a broker accepted, the first included.
    public var connects: Counter
    /// Every accepted connection to another broker than the last accepted one (fail-over or fail-back).
    public var failovers: Counter
    /// Every connection taken over by another client with the same client id (see `TakeoverWatch`).
    public var takeovers: Counter?
    /// 1 while another client with the same client id keeps taking the connection over, else 0.
    public var clientIDConflict: Gauge?

    public init(connects: Counter, failovers: Counter, takeovers: Counter? = nil, clientIDConflict: Gauge? = nil) {
        self.connects = connects
        self.failovers = failovers
        self.takeovers = takeovers
        self.clientIDConflict = clientIDConflict
    }
}
