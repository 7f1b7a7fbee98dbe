import CatalogStore
import Logging
import MPRIS
import ServiceLifecycle

// MARK: - The node as services

extension Node {
    /// The node's long-running parts, in the order they depend on each other, for one `ServiceGroup`.
    ///
    /// The group starts them together and shuts them down one at a time in reverse: the commands service
    /// stops taking commands first, then Home Assistant, downloads, the loudness analyser (stopping its
    /// child), the catalog service, the content tree, announcements, the playback observers, now playing's
    /// artwork, the resume store, the audio (whose observers first save where the item stands) and the
    /// listening history, and the transport last, which says `offline` and disconnects once nothing else
    /// can publish. Start order is not left to the group: every service waits for
    /// `commandsReady`, which the transport opens once the command subscriptions and capabilities are in
    /// place (S19).
    /// - Parameter catalogService: the catalog refresher, placed after the content tree it feeds.
    public func services(catalog catalogService: CatalogService? = nil) -> [ServiceGroupConfiguration.ServiceConfiguration] {
        // Each service holds the parts it runs, and at most a narrow protocol for what it asks of the rest of
        // the node, implemented by the part that owns that state; never the node itself. Named here:
        // otherwise the group names each service by describing it through reflection, which costs
        // milliseconds of the start.
        let session = NodeSession(
            transport: transport, retained: retained, topics: topics, commands: commands, inbound: inbound,
            capabilities: capabilities, commandCenter: commandCenter, info: info, volume: volume, playback: playback,
            resumeStore: resumeStore, retainedBook: retainedBook,
            commandsReady: commandsReady, initialStatePublished: initialStatePublished, hasCatalog: catalog != nil,
            hasContent: content != nil, logger: logger)
        var services: [ServiceGroupConfiguration.ServiceConfiguration] = [
            .init(service: TransportService(session: session, retained: retained), serviceName: "Transport"),
        ]
        // Stops after every service that hands it saves, and writes what they left.
        if let saves { services.append(.init(service: saves, serviceName: "Saves")) }
        // Right after the transport, so it stops just before it: its figures go out while connected.
        if let metricsService { services.append(.init(service: metricsService, serviceName: "Metrics")) }
        // Before now playing, which tells it what plays, so it stops after it; with no audio it still keeps
        // its lists in line with the catalog.
        if let listeningHistory { services.append(.init(service: listeningHistory, serviceName: "ListeningHistory")) }
        if let playback, let engine {
            // The retained state a snapshot shows, which a reply waits for, then whatever else follows playback.
            let showing: [any PlaybackObserver] = [
                QueueTopic(retained: retained, topic: topics.queue), nowPlaying,
                PlaybackCapabilities(commandCenter: commandCenter, feedback: feedback, capabilities: capabilities),
            ]
            let following: [any PlaybackObserver] = ([
                progress, PlaybackEventPublisher(events: events, logger: logger), resumeStore, listeningHistory,
                metricsService, mpris.map(MPRISSeekFollower.init),
            ] as [(any PlaybackObserver)?]).compactMap { $0 }
            services.append(.init(
                service: PlaybackService(
                    ready: commandsReady, playback: playback, engine: engine, observers: showing + following),
                serviceName: "Playback"))
            // After the audio, so it stops before it: the place it saves is where the audio stopped.
            if let resumeStore { services.append(.init(service: resumeStore, serviceName: "Resume")) }
            services.append(.init(service: nowPlaying, serviceName: "NowPlaying"))
            services.append(.init(
                service: PlaybackObserverService(
                    ready: commandsReady, playback: playback, showing: showing, following: following,
                    shown: shownSnapshots, progressInterval: configuration.content.progressInterval),
                serviceName: "PlaybackObservers"))
            // After the audio, so a clip playing at shutdown is stopped before the music.
            if let announcer { services.append(.init(service: announcer, serviceName: "Announcements")) }
        }
        if let content, let catalog {
            services.append(.init(
                service: ContentTreeService(
                    ready: commandsReady, started: initialStatePublished, content: content, catalog: catalog,
                    treeArtwork: treeArtwork, info: info, retained: retained, retainedBook: retainedBook,
                    treeTopic: topics.contentTree, logger: logger),
                serviceName: "ContentTree"))
        }
        if let catalogService { services.append(.init(service: catalogService, serviceName: "Catalog")) }
        if let database = catalog as? CatalogDatabase, let measurer = configuration.loudnessMeasurer,
           configuration.loudnessTarget != nil {
            services.append(.init(
                service: LoudnessAnalyser(
                    database: database, measurer: measurer, content: content, downloadsDirectory: downloads?.directory,
                    started: initialStatePublished, logger: logger),
                serviceName: "Loudness"))
        }
        if let downloadService { services.append(.init(service: downloadService, serviceName: "Downloads")) }
        if configuration.homeAssistantPrefix != nil || retainedBook != nil {
            services.append(.init(service: HomeAssistantService(
                ready: commandsReady, presence: homeAssistant, transport: transport, retainedBook: retainedBook), serviceName: "HomeAssistant"))
        }
        services.append(.init(
            service: InboundService(lanes: inbound, answering: commands, playbackExecutor: engine?.callExecutor),
            serviceName: "Commands"))
        // Last, so it stops first: no D-Bus call reaches the lanes once they close.
        if let mpris, let bus = configuration.mpris {
            services.append(.init(
                service: MPRISService(
                    bus: bus, nodeID: configuration.nodeID, object: mpris, ready: { [commandsReady] in await commandsReady.wait() },
                    logger: logger),
                serviceName: "MPRIS"))
        }
        return ShutdownSteps.timing(services, logger: logger)
    }

    /// Runs the node's services in a group of their own until `shutdown` (or cancellation): for tests,
    /// benchmarks and the rig, which run nodes without the daemon's group. Inside another service group,
    /// that group's graceful shutdown reaches this one.
    public func run() async {
        let group = ServiceGroup(configuration: ServiceGroupConfiguration(services: services(), logger: logger))
        if ownRun.started(group) { await group.triggerGracefulShutdown() }
        do {
            try await group.run()
        } catch {
            logger.error("the node's services stopped: \(error)")
        }
        ownRun.stopped.open()
    }

    /// Stops what `run()` runs, as on SIGTERM, and returns once it has stopped: commands stop first,
    /// the position is saved, and the node says `offline` (retained) and disconnects last.
    public func shutdown() async {
        guard let group = ownRun.shutdownRequested() else { return }
        await group.triggerGracefulShutdown()
        await ownRun.stopped.wait()
    }
}

/// Returns once the task is cancelled: a service whose work is done waits here, since a service that
/// returns on its own ends the whole group.
func waitUntilCancelled() async {
    while !Task.isCancelled { try? await Task.sleep(for: .seconds(3600)) }
}
