import Logging
import MQTTTransport
import Playback
import RemoteCommands
import ServiceLifecycle
import Synchronization

// MARK: - Inbound: two lanes, filled in arrival order on the transport's thread

/// Answers commands: last in the group, so it is the first to stop, and no command starts once the node
/// has begun to shut down. What was queued before is still answered.
struct InboundService: Service {
    let lanes: InboundLanes
    let answering: any CommandAnswering
    /// Where the playback lane prefers to run: the audio engine's thread.
    let playbackExecutor: (any TaskExecutor)?

    func run() async throws {
        let (lanes, answering, executor) = (lanes, answering, playbackExecutor)
        await withDiscardingTaskGroup { group in
            group.addTask { await lanes.run(answering: answering, playbackExecutor: executor) }
            // Cancelled instead: the lanes' tasks are cancelled with this one.
            try? await gracefulShutdown()
            lanes.close()
        }
    }
}

/// What the inbound lanes ask of the rest of the node: which lane a message takes, and its answer.
protocol CommandAnswering: Sendable {
    /// Home Assistant's birth message: handled at once, on no lane.
    func handleHomeAssistantBirth(_ message: MQTTMessage) -> Bool
    /// Reads of the content tree and the context, which never wait for the audio.
    func isContentMessage(_ message: MQTTMessage) -> Bool
    /// Answers a command that needs no waiting; false when it must take its turn on a lane.
    func answerAtOnce(_ message: MQTTMessage) -> Bool
    /// Performs one message and answers it; `settled` is false when its deadline answered it already.
    func handle(_ message: MQTTMessage, settled: () -> Bool) async
    /// Returns once the retained state shows every change playback has made so far (see `ShownSnapshots`).
    func waitUntilStateShown() async
    /// Sends the one reply `request` gets.
    func send(_ reply: CommandReply, to request: MQTTMessage)
    func answerOverdue(_ entry: ReplyDeadlines.Entry, after limit: Duration)
    func refuseWhileShuttingDown(_ message: MQTTMessage)
}


/// Where inbound messages wait for their turn.
///
/// Playback commands run one at a time on the playback lane, which prefers the audio engine's thread:
/// a command reaches the engine there without a hop to the cooperative pool and back. Reads of the
/// content tree and the context run on the content lane, so they never wait for the audio (S26); a
/// browse of a published node is even answered on the transport's thread, as long as no content
/// message is waiting before it (replies keep the order of their requests).
///
/// The transport fills the lanes from its thread; the commands service empties them in `run`.
final class InboundLanes: Sendable {
    private let playback: AsyncStream<(ticket: UInt64, message: MQTTMessage)>.Continuation
    private let playbackMessages: AsyncStream<(ticket: UInt64, message: MQTTMessage)>
    private let content: AsyncStream<MQTTMessage>.Continuation
    private let contentMessages: AsyncStream<MQTTMessage>
    /// Replies that wait for their command's work to finish (playItem: until audio plays).
    private let later: AsyncStream<(reply: CommandReply, request: MQTTMessage)>.Continuation
    private let laterReplies: AsyncStream<(reply: CommandReply, request: MQTTMessage)>
    /// Content messages routed to the content lane and not yet answered.
    private let contentBacklog = Mutex(0)
    private let isOpen = Atomic(true)
    /// Playback commands not yet answered, each answered by the lane or, past its deadline, by the watchdog.
    private let deadlines: ReplyDeadlines

    init(replyDeadline: Duration) {
        (playbackMessages, playback) = AsyncStream.makeStream(
            of: (ticket: UInt64, message: MQTTMessage).self, bufferingPolicy: .unbounded)
        (contentMessages, content) = AsyncStream.makeStream(of: MQTTMessage.self, bufferingPolicy: .unbounded)
        (laterReplies, later) = AsyncStream.makeStream(bufferingPolicy: .unbounded)
        deadlines = ReplyDeadlines(limit: replyDeadline)
    }

    /// Answers what the lanes hold until `close`, and what was queued before it; a reply still waiting for
    /// its work then (playItem: for the sound, within its own timeout) is sent once the work has finished,
    /// while the transport, which stops last, can still carry it.
    func run(answering answerer: any CommandAnswering, playbackExecutor: (any TaskExecutor)?) async {
        let deadlines = self.deadlines
        await withDiscardingTaskGroup { outer in
            outer.addTask { [laterReplies] in
                await withDiscardingTaskGroup { replies in
                    for await (reply, request) in laterReplies {
                        replies.addTask {
                            let finished = await reply.finished()
                            await answerer.waitUntilStateShown()
                            answerer.send(finished, to: request)
                        }
                    }
                }
            }
            await withDiscardingTaskGroup { group in
                // A quarter of a second is fine grained enough next to a deadline of seconds, and costs
                // nothing on a command's path (no timer per command); with nothing pending it sleeps, which
                // matters to a process running many nodes.
                group.addTask {
                    for await _ in deadlines.becamePending {
                        while !Task.isCancelled, !deadlines.isEmpty {
                            try? await Task.sleep(for: .milliseconds(250))
                            for entry in deadlines.expire(at: .now) { answerer.answerOverdue(entry, after: deadlines.limit) }
                        }
                    }
                }
                await withDiscardingTaskGroup { lanes in
                    lanes.addTask(executorPreference: playbackExecutor) { [playbackMessages] in
                        for await (ticket, message) in playbackMessages where deadlines.start(ticket) {
                            await answerer.handle(message, settled: { deadlines.finish(ticket) })
                        }
                    }
                    lanes.addTask { [contentMessages] in
                        for await message in contentMessages {
                            await answerer.handle(message, settled: { true })
                            self.contentBacklog.withLock { $0 -= 1 }
                        }
                    }
                }
                group.cancelAll()
            }
            // The lanes are done: nothing more is deferred, and the replies waiting end the loop above.
            later.finish()
        }
    }

    /// Puts a message on its lane, or answers it at once. Never blocks.
    func route(_ message: MQTTMessage, to answerer: any CommandAnswering) {
        guard isOpen.load(ordering: .acquiring) else { return answerer.refuseWhileShuttingDown(message) }
        if answerer.handleHomeAssistantBirth(message) { return }
        guard answerer.isContentMessage(message) else {
            playback.yield((deadlines.admit(message), message))
            return
        }
        let backlog = contentBacklog.withLock { $0 }
        if backlog == 0, answerer.answerAtOnce(message) { return }
        contentBacklog.withLock { $0 += 1 }
        content.yield(message)
    }

    /// Sends `reply` once its work has finished; the lane moves on meanwhile.
    func answerLater(_ reply: CommandReply, to request: MQTTMessage) {
        later.yield((reply, request))
    }

    /// Takes no more messages; the lanes end once they have answered what they hold.
    func close() {
        isOpen.store(false, ordering: .releasing)
        playback.finish()
        content.finish()
    }
}

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
            let reply = await commandCenter.handle(
                name: name, payload: message.payload, maximumPayload: maximumPayload)
            // A playback command's effect on now playing, the queue and the volume is marked before its
            // answer; the content lane's reads change none of them.
            if reply.result.deferred == nil, commandCenter.lane(of: name) != .content { await waitUntilStateShown() }
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

    /// Returns once the now-playing service has marked the retained state of the controller's newest
    /// snapshot: called when a command's work is done, so that state includes what the command changed.
    /// Normally at once or within a millisecond; a follower held up does not hold the reply over a second.
    func waitUntilStateShown() async {
        guard let latest = playback?.latestSnapshot?.number else { return }
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
            events.publish(["type": "error", "message": .string("context: \(reply.result.message ?? "")")])
            return
        }
        await context.apply(payload)
    }
}
