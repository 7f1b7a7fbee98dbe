import Announcements
import Artwork
import CoreMetrics
import CatalogStore
import ContentTree
import Downloads
import Foundation
import Logging
import MQTTTransport
import Playback
import RemoteCommands
import MediaJSON
import MPRIS
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
    /// The transport and the queue, when the node has an audio engine.
    public let playback: PlaybackController?
    /// The output level (volume, mute, ducks, speed gain, loudness), when the node has an audio engine.
    public let level: OutputLevel?
    /// Where announcements' URL clips are downloaded: a directory of this node's own, so nodes in one
    /// process (a rig, a test run) never see each other's files.
    public let announcementDownloads = FileManager.default.temporaryDirectory
        .appendingPathComponent("medianode-announcements-\(getpid())-\(Node.instances.add(1, ordering: .relaxed).newValue)")
    private static let instances = Atomic<Int>(0)
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
    /// `P/info`, and the catalog counts in it.
    let info: NodeInfo
    /// `P/events`.
    let events: EventPublisher
    /// `P/commands`.
    let capabilities: CapabilitiesPublisher
    /// Home Assistant's discovery of the node, with `--homeassistant`.
    let homeAssistant: HomeAssistantPresence
    /// Opens once the initial state, the upper levels of the tree included, is in place.
    let initialStatePublished = Latch()
    /// Opens once the command subscriptions are made and the initial retained state, capabilities
    /// included, is marked: what the other services publish comes after it (S19).
    let commandsReady: Latch
    /// Where inbound messages wait for the commands service.
    let inbound: InboundLanes
    /// The group `run()` runs the services in, for `shutdown()`.
    let ownRun = OwnRun()
    /// Publishes the pictures the published tree names.
    let treeArtwork: TreeArtworkPublisher
    /// `changeVolume` and `mute`, and the level kept across restarts, when the node plays.
    let volume: ListenerVolume?
    /// Each item's position saved and shown in the tree (S31), when the node has a catalog.
    let progress: PlaybackProgress?
    /// `P/context`: the content limits, metered network and vehicle speed.
    let context: ContextFollower
    /// Local copies for offline listening, when the node has a catalog file to keep their rows.
    let downloads: DownloadManager?
    /// Works the download queue and answers `download`, when the node keeps local copies.
    let downloadService: DownloadService?
    /// Makes the queue's items from the catalog's, for the content commands and the resume store.
    let queueItems: QueueItemMaker
    /// The play state across restarts, when the node plays and has a catalog file to keep it in.
    let resumeStore: ResumeStore?
    /// Writes the play state, the volume and items' positions coalesced, when the node has a state file.
    let saves: SaveBatcher?
    /// `P/metrics` and the Prometheus text, when the node publishes them.
    let metricsService: MetricsService?
    /// Counts replies by status and their latency (no-ops without metrics).
    /// Which lane a command takes, and its one reply.
    let commands: CommandDispatcher
    /// Recently Played and Favorites, when the node has a catalog file to keep them.
    let listeningHistory: ListeningHistory?
    /// Plays `announce` clips over the music, when the node plays and has an output for them.
    let announcer: Announcer?
    /// The node as an MPRIS media player on D-Bus, with `--mpris session` or `system`.
    let mpris: MPRISPlayerObject?

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
    ///   - clipPlayer: plays announcements into the engine's output; without it `announce` is unavailable.
    ///   - stateStorage: where the play state and the volume are written, coalesced with the items' positions
    ///     (see `SaveBatcher`); it then takes the place of `volumeMemory` and `playStateMemory`.
    public init(configuration: NodeConfiguration, transport: any MessageTransport, engine: (any AudioEngine)? = nil,
                catalog: (any ContentCatalog)? = nil, artworkStore: (any ArtworkStore)? = nil,
                retainedMemory: (any RetainedTopicMemory)? = nil, volumeMemory: (any VolumeMemory)? = nil,
                playStateMemory: (any PlayStateMemory)? = nil, stateStorage: (any NodeStateStorage)? = nil,
                commandCenter: RemoteCommandCenter? = nil,
                downloads: DownloadManager? = nil, listeningHistory: (any ListeningHistoryStore)? = nil,
                metrics: NodeMetricsBackend? = nil, clipPlayer: (any ClipPlayer)? = nil,
                logger: Logger = Logger(label: "medianode")) {
        var configuration = configuration
        configuration.capabilities.textToSpeech = engine != nil && clipPlayer?.canSpeak == true
        self.configuration = configuration
        let commandsReady = Latch()
        self.commandsReady = commandsReady
        self.downloads = downloads
        // Whether saving positions fails now (a full or read-only disk), so it is logged once, not each time.
        let progressSaveFailures = FailureEpisode()
        let saves = stateStorage.map {
            SaveBatcher(storage: $0, positions: catalog as? any PositionStorage, failures: progressSaveFailures, logger: logger)
        }
        self.saves = saves
        let volumeSaves: (any VolumeMemory)? = saves ?? volumeMemory
        let playStateSaves: (any PlayStateMemory)? = saves ?? playStateMemory
        // With saves batched, positions the catalog does not hold yet are shown and played from memory.
        let unsaved = saves?.keepsPositions == true ? UnsavedPositions() : nil
        let readCatalog: (any ContentCatalog)? = catalog.map { base in
            unsaved.map { ProgressOverlayCatalog(base: base, unsaved: $0) } ?? base
        }
        let queueItems = QueueItemMaker(catalog: readCatalog, downloads: downloads)
        self.queueItems = queueItems
        self.transport = transport
        self.engine = engine
        self.catalog = catalog
        let commandCenter = commandCenter ?? CommandTable.makeCenter(capabilities: configuration.capabilities)
        self.commandCenter = commandCenter
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
        let events = EventPublisher(transport: transport, topic: configuration.topics.events, logger: logger)
        self.events = events
        let capabilities = CapabilitiesPublisher(retained: retained, topic: configuration.topics.commands, commandCenter: commandCenter)
        self.capabilities = capabilities
        self.homeAssistant = HomeAssistantPresence(configuration: configuration, retained: retained, logger: logger)
        if configuration.metrics.isEnabled || metrics != nil {
            self.metricsService = MetricsService(
                backend: metrics ?? NodeMetricsBackend(), settings: configuration.metrics, retained: retained,
                topic: configuration.topics.metrics, ready: commandsReady,
                catalogFile: catalog == nil ? nil : configuration.databasePath, logger: logger)
        } else {
            self.metricsService = nil
        }
        let recording: any MetricsRecording = metricsService ?? NoMetrics()
        let commandMetrics = CommandMetrics(factory: recording.factory)
        self.info = NodeInfo(
            configuration: configuration, startedAt: Date(), catalog: catalog, retained: retained,
            playables: CoreMetrics.Recorder(label: MetricName.catalogPlayables, factory: recording.factory), logger: logger)
        let inbound = InboundLanes(replyDeadline: configuration.replyDeadline)
        self.inbound = inbound
        let loudness = (catalog as? CatalogDatabase).map { CatalogLoudness(database: $0) }
        let volumeTopic = VolumeTopic(retained: retained, topic: configuration.topics.volume, capabilities: capabilities)
        let level = engine.map {
            OutputLevel(
                engine: $0, loudness: loudness, levelling: LoudnessLevelling(target: configuration.loudnessTarget),
                show: volumeTopic.show)
        }
        self.level = level
        self.playback = engine.map { PlaybackController(engine: $0, level: level) }
        let content = NodeContent.make(
            catalog: readCatalog, configuration: configuration,
            publish: ContentTreeService.treePublisher(retained: retained, topics: configuration.topics, treeArtwork: treeArtwork))
        self.content = content
        self.volume = level.map {
            ListenerVolume(level: $0, topic: volumeTopic, memory: volumeSaves, step: configuration.capabilities.volumeStep, logger: logger)
        }
        if let content, let catalog {
            self.progress = PlaybackProgress(
                content: content, catalog: catalog, playback: playback, saveFailures: progressSaveFailures,
                saves: saves.flatMap { saves in unsaved.map { (saves, $0) } }, logger: logger)
        } else {
            self.progress = nil
        }
        let context = ContextFollower(
            content: content, level: level, downloads: downloads,
            speedGain: VehicleSpeedGain(dbPer100: configuration.speedVolume, logger: logger), events: events, logger: logger)
        self.context = context
        self.commands = CommandDispatcher(
            commandCenter: commandCenter, topics: configuration.topics, maximumPayload: configuration.maximumPayload,
            transport: transport, retained: retained, inbound: inbound, playback: playback, shownSnapshots: shownSnapshots,
            homeAssistant: homeAssistant, context: context, events: events, metrics: commandMetrics, logger: logger)
        if let downloads {
            self.downloadService = DownloadService(
                ready: commandsReady, started: initialStatePublished, downloads: downloads, settings: configuration.downloads,
                content: content, catalog: catalog, events: events,
                metrics: DownloadMetrics(factory: recording.factory), logger: logger)
        } else {
            self.downloadService = nil
        }
        if let playback, let playStateMemory = playStateSaves {
            self.resumeStore = ResumeStore(
                memory: playStateMemory, playback: playback, items: queueItems,
                mode: configuration.resume, ready: commandsReady,
                // Through the batcher its saves only queue: the batcher tells of the writes that fail.
                saveFailures: saves == nil ? progressSaveFailures : FailureEpisode(), logger: logger)
        } else {
            self.resumeStore = nil
        }
        if let playback, let clipPlayer {
            self.announcer = Announcer(
                player: clipPlayer, music: playback, catalog: catalog.map { CatalogClips(catalog: $0, items: queueItems) },
                events: AnnouncementEventPublisher(events: events),
                temporaryDirectory: announcementDownloads,
                logger: logger)
        } else {
            self.announcer = nil
        }
        if configuration.mpris != nil {
            let source = NodeMPRISSource(
                retained: retained, topics: configuration.topics, commandCenter: commandCenter, playback: playback,
                artworkStore: artworkStore)
            let player = MPRISPlayerObject(
                door: commands, source: source,
                artwork: MPRISArtworkFiles(directory: configuration.mprisArtworkDirectory.map { URL(fileURLWithPath: $0) }
                    ?? MPRISArtworkFiles.defaultDirectory(nodeID: configuration.nodeID)))
            retained.watch(source.watchedTopics) { player.stateChanged() }
            self.mpris = player
        } else {
            self.mpris = nil
        }
        CommandTable.install(in: commandCenter, parts: CommandParts(
            capabilities: configuration.capabilities, playback: playback, volume: volume,
            marks: playback.map { FeedbackMarks(playback: $0, book: feedback, commandCenter: commandCenter, capabilities: capabilities) },
            content: content.map { ContentCommands(content: $0, treeArtwork: treeArtwork, topics: configuration.topics) },
            catalogQueue: content.flatMap { content in playback.map { CatalogQueue(content: content, playback: $0, queueItems: queueItems) } },
            downloads: content == nil ? nil : downloadService, announcer: announcer))
    }

    /// A node on the SQLite catalog cache, which is also where its pictures and retained topics are kept; its
    /// play state and volume are in `stateFile` when given (see `NodeStateFile`), else in the catalog.
    public convenience init(configuration: NodeConfiguration, transport: any MessageTransport,
                            engine: (any AudioEngine)? = nil, catalog: CatalogDatabase, stateFile: NodeStateFile? = nil,
                            commandCenter: RemoteCommandCenter? = nil, metrics: NodeMetricsBackend? = nil,
                            clipPlayer: (any ClipPlayer)? = nil, logger: Logger = Logger(label: "medianode")) {
        self.init(configuration: configuration, transport: transport, engine: engine, catalog: catalog,
                  artworkStore: catalog, retainedMemory: catalog, volumeMemory: catalog, playStateMemory: catalog,
                  stateStorage: stateFile, commandCenter: commandCenter,
                  downloads: DownloadManager(
                    directory: configuration.downloads.directory(besideDatabase: catalog.path), store: catalog,
                    logger: logger),
                  listeningHistory: catalog, metrics: metrics, clipPlayer: clipPlayer, logger: logger)
    }

    var topics: TopicLayout { configuration.topics }

    /// Returns once the node has put its initial retained state in place, the upper levels of the content
    /// tree included (they go out as soon as the broker connection is up). Background work that would
    /// compete with the start (integrity check, refreshes) waits for it.
    public func waitUntilStarted() async { await initialStatePublished.wait() }

    // MARK: - Outbound

    /// What the catalog service tells the node: events, counts and why the tree is empty.
    public var catalogObserver: any CatalogObserver {
        CatalogFollower(started: initialStatePublished, events: events, info: info, content: content, logger: logger)
    }

    /// Says why the root is empty (no media, still loading, offline); the status item follows (S25).
    public func setEmptyRootReason(_ reason: EmptyRootReason) async {
        await content?.setEmptyRootReason(reason, logger: logger)
    }


}
