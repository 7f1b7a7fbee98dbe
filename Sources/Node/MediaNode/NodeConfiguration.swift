import DBusBinding
import MQTTTransport
import Playback
import RemoteCommands

/// Everything the node is told at start, from the command line and the optional config file.
public struct NodeConfiguration: Sendable {
    /// The preferred broker: the node connects here first and comes back here (fail-back).
    public var broker: BrokerURL
    /// Brokers to fail over to, in turn, when the connection is lost.
    public var fallbackBrokers: [BrokerURL]
    /// While connected to a fallback broker, how often the first is tried.
    public var failbackInterval: Duration
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
    /// The downloads folder, quota and automatic downloads.
    public var downloads = DownloadSettings()
    /// What a start does with the play state the last run saved.
    public var resume = NodeConfiguration.defaultResume
    /// `--speed-volume`: decibels of output gain per 100 km/h of `vehicleSpeed`; 0 is off.
    public var speedVolume = 0.0
    /// `--loudness-target`: the loudness every item plays at, LUFS; nil (`off`) plays every file as it is.
    public var loudnessTarget: Double? = LoudnessLevelling.defaultTarget
    /// The `medianode` executable whose `catalog measure` measures untagged files in the background; nil
    /// measures nothing (items without tags then play unlevelled).
    public var loudnessMeasurer: String?
    /// `P/metrics` and the Prometheus text; off unless asked for (the daemon's default is 60 s).
    public var metrics = MetricsSettings()
    /// `--mpris`: the bus the node appears on as an MPRIS media player; nil (`off`) appears on none.
    public var mpris: BusAddress?
    /// Where the pictures MPRIS clients read by `mpris:artUrl` go; nil: under `$XDG_RUNTIME_DIR`.
    public var mprisArtworkDirectory: String?

    /// Defaults the initializer and the daemon's flags share, each said once here.
    public static let defaultFailbackInterval = Duration.seconds(30)
    public static let defaultArtworkSize = 600
    public static let defaultProtocolVersion = MQTTProtocolVersion.v5
    public static let defaultResume = ResumeMode.paused

    public init(
        broker: BrokerURL = BrokerURL(host: "127.0.0.1"), fallbackBrokers: [BrokerURL] = [],
        failbackInterval: Duration = defaultFailbackInterval, nodeID: String, prefix: String? = nil,
        protocolVersion: MQTTProtocolVersion = defaultProtocolVersion, tls: MQTTTLSConfiguration = .init(), libraries: [String] = [],
        catalogs: [String] = [], databasePath: String, audioSink: String = "auto",
        maximumPayload: Int = CommandRequest.defaultMaximumPayload, capabilities: CommandCapabilities = .init(),
        keepAlive: Int = 30, artworkSize: Int = defaultArtworkSize, artworkTimeout: Duration = .seconds(8),
        content: ContentSettings = .init(), replyDeadline: Duration = .seconds(4), homeAssistantPrefix: String? = nil
    ) {
        self.broker = broker
        self.fallbackBrokers = fallbackBrokers
        self.failbackInterval = failbackInterval
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

    /// Every broker, the preferred one first.
    public var brokers: [BrokerURL] { [broker] + fallbackBrokers }

    /// The MQTT client settings: the client id is the node id (the same on every broker), the last will
    /// says `offline`, and the command subscriptions come with every connection: the node says `online`
    /// on a broker only once it can hear commands there.
    public var mqttConfiguration: MQTTConfiguration {
        MQTTConfiguration(
            brokers: brokers, clientID: "medianode-\(nodeID)", protocolVersion: protocolVersion, keepAlive: keepAlive,
            will: MQTTWill(topic: topics.status, payload: Array("offline".utf8), qos: 1, retain: true), tls: tls,
            subscriptions: [topics.commandFilter: 1, topics.context: 1], failbackInterval: failbackInterval)
    }

    // MARK: - Node ids

    /// Whether `id` may name a node: letters A-Z and a-z, digits, `_` and `-`. Some brokers (a NATS
    /// cluster among them) close a connection that publishes to a topic with a dot, and the id is in
    /// every topic.
    public static func isValidNodeID(_ id: String) -> Bool {
        !id.isEmpty && id.unicodeScalars.allSatisfy(isNodeIDCharacter)
    }

    /// A node id from a host name: every character a node id cannot hold becomes `_`
    /// (`car1.example.net` -> `car1_example_net`).
    public static func nodeID(fromHostName name: String) -> String {
        let id = String(String.UnicodeScalarView(name.unicodeScalars.map { isNodeIDCharacter($0) ? $0 : "_" }))
        return id.isEmpty ? "medianode" : id
    }

    private static func isNodeIDCharacter(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar {
        case "A"..."Z", "a"..."z", "0"..."9", "_", "-": true
        default: false
        }
    }
}
