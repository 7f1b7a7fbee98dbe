import ArgumentParser
import CatalogStore
import DBusBinding
import Foundation
import GStreamerAudio
import Logging
import MQTTTransport
import MediaNode
import Playback
import NodeMetrics
import RemoteCommands
import ServiceLifecycle

/// `medianode [run]`: the daemon.
struct Run: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Run the node (the default).")

    @Option(help: "Broker URL: mqtt://[user:password@]host[:port] or mqtts://...; repeatable: the first that answers is used, the others in turn when the connection is lost.")
    var broker: [String] = []
    @Option(name: .customLong("broker-password-file"),
            help: "A file whose first line is the broker password, for each --broker that names a user and no password (mqtt://USER@host): keeps it off the command line, where every local user can read it. Refused when other users can read the file.")
    var brokerPasswordFile: String?
    @Option(name: .customLong("failback-interval"), help: "While on any broker but the first, seconds between tries of the first (default \(wholeSeconds(NodeConfiguration.defaultFailbackInterval))).")
    var failbackInterval: Double?
    @Option(help: "Topic prefix (default medianode/<node-id>).")
    var prefix: String?
    @Option(name: .customLong("node-id"), help: "Node id: letters, digits, _ and - (default the host name, other characters as _).")
    var nodeID: String?
    @Option(help: "A folder of local music; repeatable.")
    var library: [String] = []
    @Option(help: "A remote catalog URL (podcast RSS, M3U/PLS radio list, or MediaNode JSON); repeatable.")
    var catalog: [String] = []
    @Option(help: "The SQLite catalog file.")
    var database: String?
    @Option(name: .customLong("audio-sink"), help: "auto (the sound server when one answers, else the sound card), pulse, pulse:SINK, fake, wav:PATH, or a GStreamer sink description.")
    var audioSink: String?
    @Option(name: .customLong("announcement-role"), help: "The media.role of announcements' streams on the sound server (default \(GStreamerClipPlayer.defaultRole)).")
    var announcementRole: String?
    @Option(name: .customLong("mqtt-version"), help: "5 or 3.1.1 (default \(NodeConfiguration.defaultProtocolVersion.rawValue)).")
    var mqttVersion: String?
    @Option(name: .customLong("max-payload"), help: "Largest accepted command payload in bytes (default \(CommandRequest.defaultMaximumPayload)).")
    var maxPayload: Int?
    @Option(name: .customLong("ca-file"), help: "CA certificate file for mqtts://.")
    var caFile: String?
    @Option(name: .customLong("cert-file"), help: "Client certificate for mqtts://.")
    var certFile: String?
    @Option(name: .customLong("key-file"), help: "Client key for mqtts://.")
    var keyFile: String?
    @Option(name: .customLong("artwork-size"), help: "Largest side of published artwork in pixels (default \(NodeConfiguration.defaultArtworkSize)).")
    var artworkSize: Int?
    @Option(name: .customLong("content-depth"), help: "Levels below the root of the content tree published at start (default \(ContentSettings().publishedDepth)).")
    var contentDepth: Int?
    @Option(name: .customLong("content-page-size"), help: "Children per published content tree node (default \(ContentSettings().pageSize)).")
    var contentPageSize: Int?
    @Option(name: .customLong("progress-interval"), help: "Seconds between saves of the playing item's position (default \(wholeSeconds(ContentSettings().progressInterval))).")
    var progressInterval: Double?
    @Option(name: .customLong("log-level"), help: "trace, debug, info, notice, warning, error or critical.")
    var logLevel: String?
    @Option(name: .customLong("catalog-refresh"), help: "Seconds between refreshes of each --catalog (default \(wholeSeconds(CatalogRefreshSettings().remoteInterval))).")
    var catalogRefresh: Int?
    @Option(name: .customLong("library-rescan"), help: "Seconds between rescans of the --library folders (default \(wholeSeconds(CatalogRefreshSettings().localInterval))).")
    var libraryRescan: Int?
    @Option(name: .customLong("homeassistant"),
            help: "Publish Home Assistant MQTT discovery under this prefix (the flag alone: homeassistant).")
    var homeAssistant: String?
    @Option(name: .customLong("downloads-dir"), help: "Folder for downloaded episodes (default: downloads beside the database).")
    var downloadsDir: String?
    @Option(name: .customLong("auto-download"), help: "Newest episodes of each podcast feed kept downloaded (default \(DownloadSettings().autoDownload), 0: none).")
    var autoDownload: Int?
    @Option(name: .customLong("downloads-quota"), help: "Bytes the downloaded copies may take (default \(DownloadSettings().quota >> 30) GiB).")
    var downloadsQuota: Int64?
    @Option(help: "At start, the queue and place the last run saved: paused, playing (plays on if it was playing), or off (start stopped); default \(NodeConfiguration.defaultResume.rawValue).")
    var resume: String?
    @Option(name: .customLong("speed-volume"), help: "Decibels of output gain per 100 km/h of vehicleSpeed in the context, at most +\(Int(SpeedVolume.maximumGainDb)) (default 0: off).")
    var speedVolume: Double?
    /// Its value is negative: see `joiningNegativeNumbers`.
    @Option(name: .customLong("loudness-target"),
            help: "The loudness every item plays at, in LUFS (default \(Int(LoudnessLevelling.defaultTarget))), from ReplayGain/R128 tags or the node's measurement; off plays every file as it is.")
    var loudnessTarget: String?
    @Option(name: .customLong("metrics-interval"), help: "Seconds between two health reports on P/metrics (default \(wholeSeconds(MetricsSettings.defaultInterval)), 0: none).")
    var metricsInterval: Double?
    @Option(name: .customLong("metrics-listen"), help: "HOST:PORT to serve the same figures on as Prometheus text, at /metrics.")
    var metricsListen: String?
    @Option(help: "Also appear on D-Bus as an MPRIS media player, org.mpris.MediaPlayer2.medianode.<node-id>: session, system or off (default).")
    var mpris: String?
    @Option(help: "A JSON file with any of these options (keys as the long flags); flags override it.")
    var config: String?

    func run() async throws {
        unblockShutdownSignals()
        ignoreWriteSignals()
        let level = Logger.Level(rawValue: logLevel ?? "info") ?? .info
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        let logger = Logger(label: "medianode")
        let configuration = try nodeConfiguration()
        if CommandLine.arguments.dropFirst().contains(where: BrokerPassword.holdsPassword) {
            logger.warning("the broker password on the command line can be read by every user of this machine (ps, /proc/PID/cmdline): give it in --broker-password-file or in the --config file")
        }
        let announcementRole = try announcementStreamRole()
        let brokers = configuration.brokers.map(\.description).joined(separator: ", then ")
        logger.info("starting node '\(configuration.nodeID)' on \(brokers) under \(configuration.prefix)/")

        // The node's own metrics backend, made first: its MQTT client counts connections into it too.
        let metrics = configuration.metrics.isEnabled ? NodeMetricsBackend() : nil
        let transport = try MQTTClient(configuration: configuration.mqttConfiguration(metrics: metrics),
                                       logger: Logger(label: "medianode.mqtt"))
        // The broker connection comes up while GStreamer and the catalog start. The node handles the
        // `connected` event only once it runs, after its command subscriptions and capabilities are in
        // place (S19), so nothing is published earlier than before: the start just no longer waits for it.
        transport.start()
        let catalog: CatalogDatabase
        let stateFile: NodeStateFile
        let node: Node
        do {
            // GStreamer's start (registry, plugins) and opening the catalog need nothing from each other.
            let startingEngine = Task { [sink = configuration.audioSink] in Result { try Self.startEngine(sink: sink) } }
            catalog = try openCatalog(at: configuration.databasePath, logger: logger)
            // GStreamer usually takes longer: meanwhile the first tree reads get a ready browse connection.
            catalog.prepareBrowsing()
            stateFile = try await openStateFile(beside: catalog)
            let engine = try await startingEngine.value.get()
            node = Node(configuration: configuration, transport: transport, engine: engine, catalog: catalog,
                        stateFile: stateFile, metrics: metrics,
                        clipPlayer: GStreamerClipPlayer(sharingOutputOf: engine, role: announcementRole), logger: logger)
        } catch {
            // A clean disconnect makes the broker drop the last will: a node that never ran says nothing.
            await transport.shutdown()
            throw error
        }
        var refresh = CatalogRefreshSettings()
        if let catalogRefresh { refresh.remoteInterval = .seconds(max(1, catalogRefresh)) }
        if let libraryRescan { refresh.localInterval = .seconds(max(1, libraryRescan)) }
        let catalogService = CatalogService(
            node: node.catalogObserver, database: catalog, libraries: configuration.libraries, catalogs: configuration.catalogs,
            settings: refresh, tagReader: DiscovererTagReader())
        await catalogService.registerSources()
        // One group, in dependency order: on SIGTERM or SIGINT commands stop first and the transport last,
        // once the node has said `offline` (see `Node.services`).
        let group = ServiceGroup(configuration: ServiceGroupConfiguration(
            services: node.services(catalog: catalogService),
            gracefulShutdownSignals: [.sigterm, .sigint],
            logger: logger))
        try await group.run()
        logger.info("stopped")
    }

    func nodeConfiguration() throws -> NodeConfiguration {
        let brokerTexts = broker
        var brokerURLs: [BrokerURL] = []
        for text in brokerTexts.isEmpty ? ["mqtt://127.0.0.1:1883"] : brokerTexts {
            do { brokerURLs.append(try BrokerURL(parsing: text)) } catch { throw ValidationError(error.description) }
        }
        if let brokerPasswordFile {
            try BrokerPassword.apply(try BrokerPassword.read(file: brokerPasswordFile), to: &brokerURLs)
        }
        guard Set(brokerURLs.map(\.usesTLS)).count == 1 else {
            throw ValidationError("--broker: give all brokers as mqtt:// or all as mqtts://, not a mix")
        }
        let failback = failbackInterval ?? Double(NodeConfiguration.defaultFailbackInterval.components.seconds)
        guard failback > 0 else { throw ValidationError("--failback-interval must be positive") }
        let versionText = mqttVersion ?? NodeConfiguration.defaultProtocolVersion.rawValue
        guard let version = MQTTProtocolVersion(rawValue: versionText == "3" ? "3.1.1" : versionText) else {
            throw ValidationError("--mqtt-version must be 5 or 3.1.1, not '\(versionText)'")
        }
        let node: String
        if let configured = nodeID {
            guard NodeConfiguration.isValidNodeID(configured) else {
                throw ValidationError(
                    "--node-id '\(configured)' may hold only letters A-Z and a-z, digits, '_' and '-' "
                        + "(it is part of every topic, and some brokers refuse topics with other characters)")
            }
            node = configured
        } else {
            node = NodeConfiguration.nodeID(fromHostName: ProcessInfo.processInfo.hostName)
        }
        let maximumPayload = maxPayload ?? CommandRequest.defaultMaximumPayload
        guard maximumPayload > 0 else { throw ValidationError("--max-payload must be positive") }
        var content = ContentSettings()
        content.publishedDepth = contentDepth ?? content.publishedDepth
        content.pageSize = contentPageSize ?? content.pageSize
        guard content.publishedDepth >= 0, content.pageSize > 0 else {
            throw ValidationError("--content-depth must be 0 or more and --content-page-size positive")
        }
        if let seconds = progressInterval {
            guard seconds > 0 else { throw ValidationError("--progress-interval must be positive") }
            content.progressInterval = .milliseconds(Int(seconds * 1000))
        }
        var configuration = NodeConfiguration(
            broker: brokerURLs[0],
            fallbackBrokers: Array(brokerURLs.dropFirst()),
            failbackInterval: .milliseconds(Int(failback * 1000)),
            nodeID: node,
            prefix: prefix,
            protocolVersion: version,
            tls: MQTTTLSConfiguration(
                caFile: caFile, certificateFile: certFile,
                keyFile: keyFile),
            libraries: library,
            catalogs: catalog,
            databasePath: database ?? Self.defaultDatabasePath,
            audioSink: audioSink ?? "auto",
            maximumPayload: maximumPayload,
            artworkSize: artworkSize ?? NodeConfiguration.defaultArtworkSize, content: content,
            homeAssistantPrefix: try homeAssistantPrefix())
        configuration.downloads.directory = downloadsDir
        configuration.downloads.autoDownload = autoDownload ?? configuration.downloads.autoDownload
        if let quota = downloadsQuota {
            guard quota > 0 else { throw ValidationError("--downloads-quota must be positive") }
            configuration.downloads.quota = quota
        }
        guard configuration.downloads.autoDownload >= 0 else { throw ValidationError("--auto-download must be 0 or more") }
        configuration.metrics = try metricsSettings()
        if let resume {
            guard let mode = ResumeMode(rawValue: resume) else {
                throw ValidationError("--resume must be paused, playing or off, not '\(resume)'")
            }
            configuration.resume = mode
        }
        if let speedVolume {
            guard speedVolume.isFinite, speedVolume >= 0, speedVolume <= SpeedVolume.maximumGainDb else {
                throw ValidationError("--speed-volume must be 0 to \(Int(SpeedVolume.maximumGainDb)) dB per 100 km/h, not \(speedVolume)")
            }
            configuration.speedVolume = speedVolume
        }
        switch mpris ?? "off" {
        case "off": configuration.mpris = nil
        case "session": configuration.mpris = .session
        case "system": configuration.mpris = .system
        case let other: throw ValidationError("--mpris must be session, system or off, not '\(other)'")
        }
        // This very executable measures untagged files, in a child process of its own.
        configuration.loudnessMeasurer = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().path
        if let loudnessTarget {
            if loudnessTarget == "off" {
                configuration.loudnessTarget = nil
            } else {
                guard let target = Double(loudnessTarget), target.isFinite, (-40 ... -5).contains(target) else {
                    throw ValidationError("--loudness-target must be off or -40 to -5 LUFS, not '\(loudnessTarget)'")
                }
                configuration.loudnessTarget = target
            }
        }
        return configuration
    }

    /// `--metrics-interval` (default 60 s, 0: off) and `--metrics-listen`.
    func metricsSettings() throws -> MetricsSettings {
        let seconds = metricsInterval ?? Double(MetricsSettings.defaultInterval.components.seconds)
        guard seconds >= 0, seconds.isFinite else { throw ValidationError("--metrics-interval must be 0 or more") }
        if let listen = metricsListen, MetricsSettings.hostAndPort(listen) == nil {
            throw ValidationError("--metrics-listen: '\(listen)' is not HOST:PORT (e.g. 127.0.0.1:9464)")
        }
        return MetricsSettings(interval: seconds > 0 ? .milliseconds(Int(seconds * 1000)) : nil, listen: metricsListen)
    }

    /// `--announcement-role`: a plain word, as sound server policies match roles.
    func announcementStreamRole() throws -> String {
        let role = announcementRole ?? GStreamerClipPlayer.defaultRole
        guard GStreamerClipPlayer.isValidRole(role) else {
            throw ValidationError("--announcement-role must be a word of letters, digits, - and _ (e.g. event), not '\(role)'")
        }
        return role
    }

    /// `--homeassistant` (in a config file, a prefix or `true` for the default one).
    func homeAssistantPrefix() throws -> String? {
        guard let prefix = homeAssistant else { return nil }
        guard !prefix.isEmpty, !prefix.contains(where: { "+#".contains($0) }) else {
            throw ValidationError("--homeassistant: '\(prefix)' is not a topic prefix")
        }
        return prefix
    }

    /// Lets `--homeassistant` stand alone: the parser's options all take a value, so a bare flag (last,
    /// or followed by another flag) gets the default prefix here.
    static func expandingHomeAssistantFlag(_ arguments: [String]) -> [String] {
        var expanded: [String] = []
        for (index, argument) in arguments.enumerated() {
            let next = index + 1 < arguments.count ? arguments[index + 1] : nil
            if argument == "--homeassistant", next == nil || next!.hasPrefix("-") {
                expanded.append("--homeassistant=\(HomeAssistantDiscovery.defaultPrefix)")
            } else {
                expanded.append(argument)
            }
        }
        return expanded
    }

    /// The options whose value may be a negative number.
    static let negativeNumberOptions: Set<String> = ["--loudness-target"]

    /// Lets `--loudness-target -23` stand as two arguments: the parser reads an argument that starts with a
    /// dash as flags, so a negative number after one of `negativeNumberOptions` is joined to it
    /// (`--loudness-target=-23`). Only a number: the option followed by another flag still lacks its value,
    /// and says so.
    static func joiningNegativeNumbers(_ arguments: [String]) -> [String] {
        var joined: [String] = []
        var index = arguments.startIndex
        while index < arguments.endIndex {
            let argument = arguments[index]
            let next = index + 1 < arguments.endIndex ? arguments[index + 1] : nil
            if negativeNumberOptions.contains(argument), let next, next.hasPrefix("-"), Double(next) != nil {
                joined.append("\(argument)=\(next)")
                index += 2
            } else {
                joined.append(argument)
                index += 1
            }
        }
        return joined
    }

    static func startEngine(sink: String) throws(ValidationError) -> GStreamerEngine {
        do {
            return try GStreamerEngine(sink: sink, logger: Logger(label: "medianode.audio"))
        } catch {
            throw ValidationError("--audio-sink \(sink): \(error.message)")
        }
    }

    /// Opens (creating, or rebuilding when corrupt) the catalog cache. The full integrity check of a large
    /// cache takes longer than the whole start should, so the catalog service runs it once the node is up.
    ///
    /// A file it cannot write stops the start with one line saying so: running on would fail every save
    /// later, and an operator reads the first line of a failed start, not a stream of SQLite errors.
    func openCatalog(at path: String, logger: Logger) throws -> CatalogDatabase {
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent()
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            throw CatalogFileProblem(path: path, reason: "its folder cannot be created (\(error.localizedDescription))")
        }
        try CatalogDatabase.checkWritable(path: path)
        do {
            return try CatalogDatabase(path: path, integrityCheck: .deferred, logger: Logger(label: "medianode.catalog"))
        } catch {
            throw CatalogFileProblem(path: path, error: error)
        }
    }

    /// Opens the node state file beside the catalog (the play state and the volume, see `NodeStateFile`).
    func openStateFile(beside catalog: CatalogDatabase) async throws -> NodeStateFile {
        do {
            return try await NodeStateFile.beside(catalog, logger: Logger(label: "medianode.state"))
        } catch {
            throw CatalogFileProblem(path: NodeStateFile.path(besideCatalog: catalog.path), reason: "\(error)")
        }
    }

    static var defaultDatabasePath: String {
        let environment = ProcessInfo.processInfo.environment
        let state = environment["XDG_STATE_HOME"] ?? ((environment["HOME"] ?? "/tmp") + "/.local/state")
        return state + "/medianode/catalog.sqlite"
    }
}

/// A default duration as the help shows it, in whole seconds.
private func wholeSeconds(_ duration: Duration) -> Int64 { duration.components.seconds }
