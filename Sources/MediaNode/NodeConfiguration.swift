import MQTTTransport
import RemoteCommands

/// Everything the node is told at start, from the command line and the optional config file.
public struct NodeConfiguration: Sendable {
    public var broker: BrokerURL
    public var nodeID: String
    public var prefix: String
    public var protocolVersion: MQTTProtocolVersion
    public var tls: MQTTTLSConfiguration
    public var libraries: [String]
    public var catalogs: [String]
    public var databasePath: String
    /// `auto`, `fake`, `wav:PATH`, or a GStreamer sink description.
    public var audioSink: String
    public var maximumPayload: Int
    public var capabilities: CommandCapabilities
    public var keepAlive: Int
    /// Largest side of published artwork, in pixels.
    public var artworkSize: Int
    /// How long an artwork download may take before it is given up (now playing never waits for it).
    public var artworkTimeout: Duration
    /// The content tree: published depth, page size, progress interval, playItem timeout.
    public var content: ContentSettings
    /// How long a playback command may wait for its reply (its turn and its work on the engine); past
    /// it the command is answered `commandFailed`. Below the 5 s after which a client resends.
    public var replyDeadline: Duration
    /// Home Assistant's discovery prefix (`--homeassistant`); nil publishes no discovery.
    public var homeAssistantPrefix: String?

    public init(
        broker: BrokerURL = BrokerURL(host: "127.0.0.1"), nodeID: String, prefix: String? = nil,
        protocolVersion: MQTTProtocolVersion = .v5, tls: MQTTTLSConfiguration = .init(), libraries: [String] = [],
        catalogs: [String] = [], databasePath: String, audioSink: String = "auto",
        maximumPayload: Int = CommandRequest.defaultMaximumPayload, capabilities: CommandCapabilities = .init(),
        keepAlive: Int = 30, artworkSize: Int = 600, artworkTimeout: Duration = .seconds(8),
        content: ContentSettings = .init(), replyDeadline: Duration = .seconds(4), homeAssistantPrefix: String? = nil
    ) {
        self.broker = broker
        self.nodeID = nodeID
        self.prefix = prefix ?? "medianode/\(nodeID)"
        self.protocolVersion = protocolVersion
        self.tls = tls
        self.libraries = libraries
        self.catalogs = catalogs
        self.databasePath = databasePath
        self.audioSink = audioSink
        self.maximumPayload = maximumPayload
        self.capabilities = capabilities
        self.keepAlive = keepAlive
        self.artworkSize = artworkSize
        self.artworkTimeout = artworkTimeout
        self.content = content
        self.replyDeadline = replyDeadline
        self.homeAssistantPrefix = homeAssistantPrefix
    }

    public var topics: TopicLayout { TopicLayout(prefix: prefix) }

    /// The MQTT client settings: the client id is the node id, and the last will says `offline`.
    public var mqttConfiguration: MQTTConfiguration {
        MQTTConfiguration(
            broker: broker, clientID: "medianode-\(nodeID)", protocolVersion: protocolVersion, keepAlive: keepAlive,
            will: MQTTWill(topic: topics.status, payload: Array("offline".utf8), qos: 1, retain: true), tls: tls)
    }
}

/// The node's version, as published in `P/info`.
public enum MediaNodeVersion {
    public static let string = "0.1.0"
}
