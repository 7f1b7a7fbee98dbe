import Logging
import MediaJSON
import MQTTTransport
import Playback
import RemoteCommands
import Synchronization

/// One node's session with its broker, step by step: what comes before the connection (S19), the
/// transport's events, the node's own status kept `online`, and the goodbye. Owns whether the node is
/// saying `offline`.
final class NodeSession: BrokerSession {
    private let transport: any MessageTransport
    private let retained: RetainedPublisher
    private let topics: TopicLayout
    private let commands: CommandDispatcher
    private let inbound: InboundLanes
    private let capabilities: CapabilitiesPublisher
    private let commandCenter: RemoteCommandCenter
    private let info: NodeInfo
    private let volume: ListenerVolume?
    private let playback: PlaybackController?
    private let resumeStore: ResumeStore?
    private let retainedBook: RetainedTopicBook?
    /// Opened here once the command subscriptions and the initial state are in place.
    private let commandsReady: Latch
    /// Opened here when there is no content tree to wait for.
    private let initialStatePublished: Latch
    private let hasCatalog: Bool
    private let hasContent: Bool
    private let logger: Logger
    /// Set once shutdown says `offline`: its own goodbye is not answered with `online`.
    private let isSayingOffline = Atomic(false)

    init(transport: any MessageTransport, retained: RetainedPublisher, topics: TopicLayout, commands: CommandDispatcher,
         inbound: InboundLanes, capabilities: CapabilitiesPublisher, commandCenter: RemoteCommandCenter, info: NodeInfo,
         volume: ListenerVolume?, playback: PlaybackController?, resumeStore: ResumeStore?,
         retainedBook: RetainedTopicBook?, commandsReady: Latch, initialStatePublished: Latch, hasCatalog: Bool,
         hasContent: Bool, logger: Logger) {
        self.transport = transport
        self.retained = retained
        self.topics = topics
        self.commands = commands
        self.inbound = inbound
        self.capabilities = capabilities
        self.commandCenter = commandCenter
        self.info = info
        self.volume = volume
        self.playback = playback
        self.resumeStore = resumeStore
        self.retainedBook = retainedBook
        self.commandsReady = commandsReady
        self.initialStatePublished = initialStatePublished
        self.hasCatalog = hasCatalog
        self.hasContent = hasContent
        self.logger = logger
    }

    /// Sets up what comes before the connection (see `TransportService`), then starts it.
    func startTransport() async {
        // The transport may be connected already (the daemon connects while it starts), so a command can
        // arrive as soon as its subscription is made: the lanes take messages from before that.
        transport.route { [weak self] message in
            guard let self else { return false }
            self.receive(message)
            return true
        }
        // S19: command subscriptions and capabilities come first; content follows them.
        do {
            try transport.subscribe(topics.commandFilter, qos: 1)
            try transport.subscribe(topics.context, qos: 1)
        } catch {
            logger.error("cannot subscribe to command topics: \(error)")
        }
        // Its own status, to say `online` again when something else says otherwise; a broker that does not
        // allow it costs only that, so it is not waited for. QoS 0: a clustered broker backs each QoS 1
        // subscription with state of its own (a JetStream consumer on NATS) that a lost member makes it
        // elect again, and a status missed while connected is only the next one's to answer.
        do {
            try transport.subscribe(topics.status, qos: 0, awaited: false)
        } catch {
            logger.warning("cannot subscribe to the node's own status: \(error)")
        }
        let volume = await self.volume?.restore()
        // The queue the last run saved goes back first, so the first now playing already shows it.
        await resumeStore?.restored.wait()
        publishInitialState(volume: volume, isRestored: await playback?.snapshot.item != nil)
        commandsReady.open()
        if !hasContent { initialStatePublished.open() }
        transport.start()
    }

    /// Follows the transport's events until they end, after its shutdown.
    func followTransport() async {
        defer { transport.route { _ in false } }
        for await event in transport.events {
            switch event {
            case .connected:
                // Renders `P/metrics` afresh too: the health follows `online` with the figures of now.
                retained.connected(first: [topics.status, topics.info, topics.commands])
            case let .disconnected(reason):
                retained.disconnected()
                logger.debug("transport disconnected: \(reason)")
            case let .message(message):
                receive(message)
            }
        }
    }

    /// Where every inbound message goes: the node's own status to `statusHeard`, the rest to the lanes.
    func receive(_ message: MQTTMessage) {
        guard message.topic != topics.status else { return statusHeard(message) }
        inbound.route(message, to: commands)
    }

    /// The node's own status as the broker passes it on. Anything but `online` while the node is up (its
    /// old connection's last will delivered late, after it moved to another broker of a cluster; another
    /// client) is answered at once with `online`, retained, so nobody who subscribes later finds it
    /// `offline`. Not the copy a new subscription brings (retain set): it is older than the `online` the
    /// node sends on every connect. Nor its own `offline` at shutdown.
    func statusHeard(_ message: MQTTMessage) {
        guard !message.retain, message.payload != Array("online".utf8),
              !isSayingOffline.load(ordering: .acquiring) else { return }
        logger.notice("'\(String(decoding: message.payload.prefix(64), as: UTF8.self))' on \(topics.status) while online: saying online again")
        retained.republish(topics.status)
    }

    /// Republishes `P/commands` whenever what the commands allow changed, until cancelled.
    func publishCapabilityChanges() async {
        for await _ in commandCenter.changes { capabilities.mark() }
    }

    /// - Parameters:
    ///   - volume: what `P/volume` shows as the audio output starts, when the node plays.
    ///   - isRestored: whether a queue from the last run is back: now playing and the queue then come from
    ///     it (the now-playing service publishes them), with no `stopped` before them.
    private func publishInitialState(volume: VolumeState?, isRestored: Bool) {
        retained.publish(topics.status, Array("online".utf8))
        if !hasCatalog { info.publish() }
        capabilities.mark()
        if let volume { self.volume?.topic.show(volume) }
        guard !isRestored else { return }
        retained.publish(topics.nowPlaying, JSONValue.object(["state": "stopped"]).jsonBytes)
        retained.publish(topics.nowPlayingArtwork, [])
        retained.publish(
            topics.queue,
            JSONValue.object(["identifiers": [], "index": .null, "repeatMode": "off", "shuffleMode": "off"]).jsonBytes)
    }

    /// Says `offline` (retained), then disconnects. Waits for nothing on the network here: the transport's
    /// shutdown lets what is published go out before its DISCONNECT, within limits of its own.
    func sayOfflineAndDisconnect() async {
        isSayingOffline.store(true, ordering: .releasing)
        retained.flush()
        do {
            try transport.publish(
                topic: topics.status, payload: Array("offline".utf8), qos: 1, retain: true, properties: .init())
        } catch {
            logger.warning("could not say 'offline' before disconnecting (\(error)); the broker's last will says it")
        }
        await retainedBook?.flush()
        await transport.shutdown()
    }
}
