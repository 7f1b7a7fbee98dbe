import Artwork
import CoreMetrics
import CatalogStore
import ContentTree
import Foundation
import Logging
import MQTTTransport
import Playback
import RemoteCommands
import MediaJSON
import NodeMetrics
import Synchronization

/// The node: wires the transport to the command center and publishes the retained state of the contract.
///
/// Its long-running parts are services (see `services(catalog:)`), run in one service group: by the
/// daemon together with the catalog service, or by `run()`.
///
/// Inbound messages are handled in arrival order on two lanes, one message at a time on each (see
/// `InboundLanes`): the commands whose table entry names the content lane (browse, contentItem, search) and
/// the context there, so the cache answers at once (S26) whatever the audio is doing; the others on the
/// playback lane. Every request gets exactly one reply.
public final class Node: Sendable {
    public let configuration: NodeConfiguration
    public let commandCenter: RemoteCommandCenter
    /// The playback core, when the node has an audio engine.
    public let playback: PlaybackController?
    let engine: (any AudioEngine)?
    let catalog: (any ContentCatalog)?
    let feedback: FeedbackBook
    let nowPlaying: NowPlayingPublisher
    /// How far the retained state shows the controller's snapshots: a reply waits for it (see `send`).
    let shownSnapshots = ShownSnapshots()
    /// The content tree, when the node has a catalog.
    let content: NodeContent?
    let transport: any MessageTransport
    let retained: RetainedPublisher
    /// Which tree nodes are retained, remembered across restarts when the catalog can hold it.
    let retainedBook: RetainedTopicBook?
    let logger: Logger
    let startedAt: Date
    let catalogInfo = CatalogInfoState()
    /// Opens once the initial state, the upper levels of the tree included, is in place.
    let initialStatePublished = Latch()
    /// Opens once the command subscriptions are made and the initial retained state, capabilities
    /// included, is marked: what the other services publish comes after it (S19).
    let commandsReady: Latch
    /// Where inbound messages wait for the commands service.
    let inbound: InboundLanes
    /// Set once the node says `offline` at shutdown: its own status is no longer answered with `online`.
    let isSayingOffline = Atomic(false)
    /// The group `run()` runs the services in, for `shutdown()`.
    let ownRun = OwnRun()
    /// Publishes the pictures the published tree names.
    let treeArtwork: TreeArtworkPublisher
    /// The listener's volume across restarts, when the node has a catalog file.
    let volumeMemory: (any VolumeMemory)?
    /// Whether saving positions fails now (a full or read-only disk), so it is logged once, not each time.
    let progressSaveFailures = FailureEpisode()
    /// Lines for commands answered with a failure: a hostile client's flood shows as a count, not a flood.
    let refusalLog = LogBudget()
    /// Local copies for offline listening, when the node has a catalog file to keep their rows.
    let downloads: DownloadManager?
    /// Makes the queue's items from the catalog's, for the content commands and the resume store.
    let queueItems: QueueItemMaker
    /// The play state across restarts, when the node plays and has a catalog file to keep it in.
    let resumeStore: ResumeStore?
    /// `P/metrics` and the Prometheus text, when the node publishes them.
    let metricsService: MetricsService?
    /// Counts replies by status and their latency (no-ops without metrics).
    let commandMetrics: CommandMetrics
    let downloadMetrics: DownloadMetrics
    /// The catalog's playable items, set after each catalog summary.
    let catalogPlayables: CoreMetrics.Recorder
    /// Recently Played and Favorites, when the node has a catalog file to keep them.
    let listeningHistory: ListeningHistory?
    /// Turns `vehicleSpeed` in each context into the controller's speed gain.
    let speedGain: VehicleSpeedGain

    /// - Parameters:
    ///   - engine: the audio engine; without one the playback commands stay unimplemented.
    ///   - catalog: the catalog cache; without one feedback marks live in memory only.
    ///   - artworkStore: cached pictures by key; without it the tree publishes no pictures, and downloaded
    ///     artwork is not kept.
    ///   - retainedMemory: which tree topics earlier runs left retained; without it a restart cannot clear
    ///     the ones no longer in the tree.
    ///   - listeningHistory: where Recently Played and Favorites are kept; without it the node has neither.
    ///   - metrics: the node's metrics backend, when its MQTT client counts into it too; a node whose
    ///     configuration asks for metrics makes its own otherwise.
    public init(configuration: NodeConfiguration, transport: any MessageTransport, engine: (any AudioEngine)? = nil,
                catalog: (any ContentCatalog)? = nil, artworkStore: (any ArtworkStore)? = nil,
                retainedMemory: (any RetainedTopicMemory)? = nil, volumeMemory: (any VolumeMemory)? = nil,
                playStateMemory: (any PlayStateMemory)? = nil, commandCenter: RemoteCommandCenter? = nil,
                downloads: DownloadManager? = nil, listeningHistory: (any ListeningHistoryStore)? = nil,
                metrics: NodeMetricsBackend? = nil, logger: Logger = Logger(label: "medianode")) {
        self.configuration = configuration
        let commandsReady = Latch()
        self.commandsReady = commandsReady
        self.downloads = downloads
        self.queueItems = QueueItemMaker(catalog: catalog, downloads: downloads)
        self.transport = transport
        self.engine = engine
        self.catalog = catalog
        self.volumeMemory = volumeMemory
        self.commandCenter = commandCenter ?? RemoteCommandCenter(capabilities: configuration.capabilities)
        self.logger = logger
        let tree = configuration.topics.contentTree
        self.retainedBook = retainedMemory.map { RetainedTopicBook(memory: $0, logger: logger) }
        self.retained = RetainedPublisher(
            transport: transport, logger: logger, book: retainedBook,
            remembers: { $0 == tree || $0.hasPrefix(tree + "/") || HomeAssistantDiscovery.isConfigTopic($0) })
        self.listeningHistory = listeningHistory.map { ListeningHistory(ready: commandsReady, store: $0, logger: logger) }
        self.feedback = FeedbackBook(catalog: catalog, observer: self.listeningHistory, logger: logger)
        self.nowPlaying = NowPlayingPublisher(
            resolver: ArtworkResolver(
                catalog: catalog, artworkStore: artworkStore, processor: ArtworkProcessor(maximumDimension: configuration.artworkSize), logger: logger,
                downloadTimeout: configuration.artworkTimeout),
            retained: retained, topics: configuration.topics, logger: logger)
        self.treeArtwork = TreeArtworkPublisher(
            store: artworkStore, retained: retained, topics: configuration.topics,
            processor: ArtworkProcessor(maximumDimension: configuration.artworkSize), started: initialStatePublished,
            logger: logger)
        self.startedAt = Date()
        self.speedGain = VehicleSpeedGain(dbPer100: configuration.speedVolume, logger: logger)
        if configuration.metrics.isEnabled || metrics != nil {
            self.metricsService = MetricsService(
                backend: metrics ?? NodeMetricsBackend(), settings: configuration.metrics, retained: retained,
                topic: configuration.topics.metrics, ready: commandsReady,
                catalogFile: catalog == nil ? nil : configuration.databasePath, logger: logger)
        } else {
            self.metricsService = nil
        }
        let recording: any MetricsRecording = metricsService ?? NoMetrics()
        self.commandMetrics = CommandMetrics(factory: recording.factory)
        self.downloadMetrics = DownloadMetrics(factory: recording.factory)
        self.catalogPlayables = CoreMetrics.Recorder(label: MetricName.catalogPlayables, factory: recording.factory)
        self.inbound = InboundLanes(replyDeadline: configuration.replyDeadline)
        let loudness = (catalog as? CatalogDatabase).map { CatalogLoudness(database: $0) }
        self.playback = engine.map {
            PlaybackController(
                engine: $0, loudness: loudness, levelling: LoudnessLevelling(target: configuration.loudnessTarget))
        }
        self.content = Self.makeContent(
            catalog: catalog, configuration: configuration,
            publish: Self.treePublisher(retained: retained, topics: configuration.topics, treeArtwork: treeArtwork))
        if let playback, let playStateMemory {
            self.resumeStore = ResumeStore(
                memory: playStateMemory, playback: playback, items: queueItems, origin: content,
                mode: configuration.resume, progressInterval: configuration.content.progressInterval, ready: commandsReady,
                saveFailures: progressSaveFailures, logger: logger)
        } else {
            self.resumeStore = nil
        }
        if let playback { registerPlaybackCommands(playback) }
        if let content { registerContentCommands(content) }
        if let content, let downloads { registerDownloadCommands(content, downloads: downloads) }
    }

    /// A node on the SQLite catalog cache, which is also where its pictures and retained topics are kept.
    public convenience init(configuration: NodeConfiguration, transport: any MessageTransport,
                            engine: (any AudioEngine)? = nil, catalog: CatalogDatabase,
                            commandCenter: RemoteCommandCenter? = nil, metrics: NodeMetricsBackend? = nil,
                            logger: Logger = Logger(label: "medianode")) {
        self.init(configuration: configuration, transport: transport, engine: engine, catalog: catalog,
                  artworkStore: catalog, retainedMemory: catalog, volumeMemory: catalog, playStateMemory: catalog,
                  commandCenter: commandCenter,
                  downloads: DownloadManager(
                    directory: configuration.downloads.directory(besideDatabase: catalog.path), store: catalog,
                    logger: logger),
                  listeningHistory: catalog, metrics: metrics, logger: logger)
    }

    var topics: TopicLayout { configuration.topics }

    /// Returns once the node has put its initial retained state in place, the upper levels of the content
    /// tree included (they go out as soon as the broker connection is up). Background work that would
    /// compete with the start (integrity check, refreshes) waits for it.
    public func waitUntilStarted() async { await initialStatePublished.wait() }

    // MARK: - Outbound

    /// - Parameters:
    ///   - volume: the listener's level the audio output starts with.
    ///   - isRestored: whether a queue from the last run is back: now playing and the queue then come from
    ///     it (the now-playing service publishes them), with no `stopped` before them.
    func publishInitialState(volume: Double, isRestored: Bool = false) {
        retained.publish(topics.status, Array("online".utf8))
        if catalog == nil { publishInfo() }
        publishCapabilities()
        if playback != nil { publishVolume(volume, isMuted: false) }
        guard !isRestored else { return }
        retained.publish(topics.nowPlaying, JSONValue.object(["state": "stopped"]).jsonBytes)
        retained.publish(topics.nowPlayingArtwork, [])
        retained.publish(
            topics.queue,
            JSONValue.object(["identifiers": [], "index": .null, "repeatMode": "off", "shuffleMode": "off"]).jsonBytes)
    }

    /// Marks `P/commands` dirty; the document is made once per flush, however many changes came before it.
    func publishCapabilities() {
        retained.publish(topics.commands, rendering: { [commandCenter] in commandCenter.capabilitiesDocument.jsonBytes })
    }

    /// ISO 8601 in UTC to the second (2026-11-25T15:20:16Z), by hand: ISO8601DateFormatter and even
    /// FoundationEssentials' `.iso8601` style look up the current time zone through ICU, which kept 3-6 MiB
    /// of ICU resident in every node for this one timestamp.
    static func utcTimestamp(_ date: Date) -> String {
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        var fields = tm()
        gmtime_r(&seconds, &fields)
        func padded(_ value: Int32, _ width: Int) -> String {
            let digits = String(value)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        return "\(padded(fields.tm_year + 1900, 4))-\(padded(fields.tm_mon + 1, 2))-\(padded(fields.tm_mday, 2))"
            + "T\(padded(fields.tm_hour, 2)):\(padded(fields.tm_min, 2)):\(padded(fields.tm_sec, 2))Z"
    }

    func publishInfo() {
        let info: JSONValue = [
            "nodeId": .string(configuration.nodeID),
            "version": .string(MediaNodeVersion.string),
            "startedAt": .string(Self.utcTimestamp(startedAt)),
            "mqttVersion": .string(configuration.protocolVersion.rawValue),
            "catalog": catalogInfoDocument(),
        ]
        retained.publish(topics.info, info.jsonBytes)
    }

    /// Publishes a non-retained event on `P/events`.
    public func publishEvent(_ event: JSONValue) {
        do {
            try transport.publish(topic: topics.events, payload: event.jsonBytes, qos: 1, retain: false,
                                  properties: MQTTProperties(contentType: "application/json"))
        } catch {
            logger.debug("event not sent: \(error)")
        }
    }
}
