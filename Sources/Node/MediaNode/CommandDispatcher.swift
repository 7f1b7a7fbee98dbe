import Logging
import MQTTTransport
import Playback
import RemoteCommands

/// The commands' one way in and out: which lane a message takes, the command center that performs it,
/// and the one reply it gets (after the retained state it changed). Owns the log budget for refusals.
struct CommandDispatcher: CommandAnswering {
    let commandCenter: RemoteCommandCenter
    let topics: TopicLayout
    let maximumPayload: Int
    let transport: any MessageTransport
    let retained: RetainedPublisher
    let inbound: InboundLanes
    let playback: PlaybackController?
    let shownSnapshots: ShownSnapshots
    let homeAssistant: HomeAssistantPresence
    let context: ContextFollower
    let events: EventPublisher
    let metrics: CommandMetrics
    let logger: Logger
    /// Lines for commands answered with a failure: a hostile client's flood shows as a count, not a flood.
    let refusalLog = LogBudget()
    /// The requests of the node's other front doors (MPRIS) waiting for their replies.
    let localReplies = LocalReplies()

    func handleHomeAssistantBirth(_ message: MQTTMessage) -> Bool { homeAssistant.handleBirth(message) }

    /// Reads of the content tree and the context: they never wait for the audio.
    func isContentMessage(_ message: MQTTMessage) -> Bool {
        guard let name = topics.commandName(in: message.topic) else { return message.topic == topics.context }
        return commandCenter.lane(of: name) == .content
    }

    /// Answers a command that needs no waiting (see `RemoteCommandCenter.answerImmediately`); false when
    /// it must take its turn on a lane.
    func answerAtOnce(_ message: MQTTMessage) -> Bool {
        guard let name = topics.commandName(in: message.topic),
              let reply = commandCenter.answerImmediately(
                name: name, payload: message.payload, maximumPayload: maximumPayload)
        else { return false }
        send(reply, to: message)
        return true
    }

    /// Performs one message and answers it.
    /// - Parameter settled: called once the command is performed; false when its deadline has already
    ///   answered it, and then this answer is dropped.
    func handle(_ message: MQTTMessage, settled: () -> Bool = { true }) async {
        if let name = topics.commandName(in: message.topic) {
            // A playback command's effect on now playing, the queue and the volume is marked before its
            // answer, by this lane; the content lane's reads change none of them.
            let marksState = commandCenter.lane(of: name) != .content && playback != nil
            if marksState {
                shownSnapshots.laneBegins()
                retained.holdWakes()
            }
            defer { if marksState { retained.releaseWakes() } }
            let reply = await commandCenter.handle(
                name: name, payload: message.payload, maximumPayload: maximumPayload)
            if marksState {
                if reply.result.deferred == nil { await waitUntilStateShown() }
                shownSnapshots.laneEnds()
                // What was made while the lane worked and after it marked, which the observers' loop left to it.
                if let latest = playback?.latestSnapshot?.number, latest > shownSnapshots.number {
                    _ = await shownSnapshots.showNewest()
                }
            }
            guard settled() else {
                logger.warning("\(name) finished after its reply deadline; its result (\(reply.result.status.rawValue)) was not sent")
                return
            }
            guard reply.result.deferred != nil else { return send(reply, to: message) }
            // Answered when its work finishes (playItem: once audio plays); the lane moves on meanwhile.
            inbound.answerLater(reply, to: message)
        } else if message.topic == topics.context {
            await handleContext(message.payload)
        }
    }

    /// Every request gets one reply, also one that arrives once shutdown has begun: it is not performed,
    /// and says so while the transport can still carry the answer.
    func refuseWhileShuttingDown(_ message: MQTTMessage) {
        guard let name = topics.commandName(in: message.topic) else { return }
        send(CommandReply(id: requestID(of: message, name: name), command: name,
                          result: .failed("not performed: the node is shutting down")),
             to: message)
    }

    /// The `id` a request carries, for a reply the command's handler does not make.
    func requestID(of message: MQTTMessage, name: String) -> String? {
        guard case let .request(request) = CommandRequest.decode(
            name: name, payload: message.payload, maximumPayload: maximumPayload)
        else { return nil }
        return request.id
    }

    /// Answers a playback command that its deadline caught waiting for its turn or still in the engine.
    func answerOverdue(_ entry: ReplyDeadlines.Entry, after limit: Duration) {
        let name = topics.commandName(in: entry.message.topic) ?? ""
        let id = requestID(of: entry.message, name: name)
        let message = entry.started
            ? "the audio engine did not finish within \(limit); the command may still take effect"
            : "not performed: the player was busy with an earlier command for \(limit)"
        send(CommandReply(id: id, command: name, result: .failed(message)), to: entry.message)
    }

    /// Returns once the retained state of the controller's newest snapshot is marked: called when a command's
    /// work is done, so that state includes what the command changed. The lane marks it itself (see
    /// `NewestSnapshotShowing`); until the now-playing service runs, it waits for it, at most a second.
    func waitUntilStateShown() async {
        guard let latest = playback?.latestSnapshot?.number else { return }
        if await shownSnapshots.showNewest(), shownSnapshots.number >= latest { return }
        if await !shownSnapshots.wait(for: latest, atMost: .seconds(1)) {
            logger.debug("now playing did not show the state of snapshot \(latest) within a second; the reply goes out")
        }
    }

    /// Sends the one reply a request gets: on `P/result`, and on its response topic when it named one;
    /// counted by status, with its time since the request arrived.
    ///
    /// A reply never overtakes the retained state its command changed: that state is marked before
    /// (`waitUntilStateShown`, for a playback command), and the flush here sends it ahead of the reply.
    func send(_ reply: CommandReply, to message: MQTTMessage) {
        let request = message.properties
        // What the command changed in the retained state goes out first: a client that reads a topic on
        // the reply sees the new state.
        retained.flush()
        let payload = reply.jsonBytes
        if reply.result.status != .success, reply.command == "announce", reply.id == HomeAssistantDiscovery.announceRequestID {
            // A person typed it in Home Assistant, which shows no reply: the log is where they can learn why.
            logger.warning("Home Assistant's Announce entity sent an announcement the node refused, so nothing was spoken: \(reply.result.message ?? reply.result.status.rawValue)")
        } else if reply.result.status != .success {
            let (write, held) = refusalLog.admit()
            if held > 0 { logger.info("\(held) more failed commands were not logged (at most \(refusalLog.linesPerWindow) lines every \(refusalLog.window))") }
            if write { logger.info("\(reply.command) -> \(reply.result.status.rawValue): \(reply.result.message ?? "")") }
        }
        do {
            try transport.publish(topic: topics.result, payload: payload, qos: 1, retain: false,
                                  properties: MQTTProperties(contentType: "application/json"))
            if let responseTopic = request.responseTopic {
                try transport.publish(
                    topic: responseTopic, payload: payload, qos: 1, retain: false,
                    properties: MQTTProperties(correlationData: request.correlationData, contentType: "application/json"))
            }
            transport.flush()
        } catch {
            logger.warning("could not send the reply to \(reply.command): \(error)")
        }
        metrics.answered(reply.result.status, receivedAt: message.receivedAt)
        localReplies.deliver(reply, to: message)
    }

    func handleContext(_ payload: [UInt8]) async {
        if case let .refused(reply) = CommandRequest.decode(name: "context", payload: payload) {
            logger.warning("ignored a malformed context message: \(reply.result.message ?? "")")
            events.publish(.error, ["message": .string("context: \(reply.result.message ?? "")")])
            return
        }
        await context.apply(payload)
    }
}
