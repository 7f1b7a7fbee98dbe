import MQTTTransport
import RemoteCommands
import Synchronization

// MARK: - Inbound: two lanes, filled in arrival order on the transport's thread

/// Where inbound messages wait for their turn.
///
/// Playback commands run one at a time on the playback lane, which prefers the audio engine's thread:
/// a command reaches the engine there without a hop to the cooperative pool and back. Reads of the
/// content tree and the context run on the content lane, so they never wait for the audio (S26); a
/// browse of a published node is even answered on the transport's thread, as long as no content
/// message is waiting before it (replies keep the order of their requests).
final class InboundLanes: Sendable {
    private let playback: AsyncStream<(ticket: UInt64, message: MQTTMessage)>.Continuation
    private let content: AsyncStream<MQTTMessage>.Continuation
    /// Content messages routed to the content lane and not yet answered.
    private let contentBacklog = Mutex(0)
    /// Playback commands not yet answered, each answered by the lane or, past its deadline, by the watchdog.
    private let deadlines: ReplyDeadlines
    private let watchdog: Task<Void, Never>

    /// Starts the lanes' tasks; they end with `finish`.
    init(node: Node) {
        let (playbackMessages, playback) = AsyncStream.makeStream(
            of: (ticket: UInt64, message: MQTTMessage).self, bufferingPolicy: .unbounded)
        let (contentMessages, content) = AsyncStream.makeStream(of: MQTTMessage.self, bufferingPolicy: .unbounded)
        self.playback = playback
        self.content = content
        let deadlines = ReplyDeadlines(limit: node.configuration.replyDeadline)
        self.deadlines = deadlines
        Task(executorPreference: node.engine?.callExecutor) {
            for await (ticket, message) in playbackMessages where deadlines.start(ticket) {
                await node.handle(message, settled: { deadlines.finish(ticket) })
            }
        }
        // A quarter of a second is fine grained enough next to a deadline of seconds, and costs nothing
        // on a command's path (no timer per command); with nothing pending it sleeps, which matters to a
        // process running many nodes.
        watchdog = Task {
            for await _ in deadlines.becamePending {
                while !Task.isCancelled, !deadlines.isEmpty {
                    try? await Task.sleep(for: .milliseconds(250))
                    for entry in deadlines.expire(at: .now) { node.answerOverdue(entry, after: deadlines.limit) }
                }
            }
        }
        Task { [self] in
            for await message in contentMessages {
                await node.handle(message)
                contentBacklog.withLock { $0 -= 1 }
            }
        }
    }

    /// Puts a message on its lane, or answers it at once. Never blocks.
    func route(_ message: MQTTMessage, node: Node) {
        guard node.isContentMessage(message) else {
            playback.yield((deadlines.admit(message), message))
            return
        }
        let backlog = contentBacklog.withLock { $0 }
        if backlog == 0, node.answerAtOnce(message) { return }
        contentBacklog.withLock { $0 += 1 }
        content.yield(message)
    }

    func finish() {
        playback.finish()
        content.finish()
        deadlines.finishWatching()
        watchdog.cancel()
    }
}

extension Node {
    /// Reads of the content tree and the context: they never wait for the audio.
    func isContentMessage(_ message: MQTTMessage) -> Bool {
        guard let name = topics.commandName(in: message.topic) else { return message.topic == topics.context }
        return name == RemoteCommand.browse.rawValue || name == RemoteCommand.contentItem.rawValue
            || name == RemoteCommand.search.rawValue
    }

    /// Answers a command that needs no waiting (see `RemoteCommandCenter.answerImmediately`); false when
    /// it must take its turn on a lane.
    func answerAtOnce(_ message: MQTTMessage) -> Bool {
        guard let name = topics.commandName(in: message.topic),
              let reply = commandCenter.answerImmediately(
                name: name, payload: message.payload, maximumPayload: configuration.maximumPayload)
        else { return false }
        send(reply, to: message.properties)
        return true
    }

    /// Performs one message and answers it.
    /// - Parameter settled: called once the command is performed; false when its deadline has already
    ///   answered it, and then this answer is dropped.
    func handle(_ message: MQTTMessage, settled: () -> Bool = { true }) async {
        if let name = topics.commandName(in: message.topic) {
            let reply = await commandCenter.handle(
                name: name, payload: message.payload, maximumPayload: configuration.maximumPayload)
            guard settled() else {
                logger.warning("\(name) finished after its reply deadline; its result (\(reply.result.status.rawValue)) was not sent")
                return
            }
            guard reply.result.deferred != nil else { return send(reply, to: message.properties) }
            // Answered when its work finishes (playItem: once audio plays); the lane moves on meanwhile.
            Task { self.send(await reply.finished(), to: message.properties) }
        } else if message.topic == topics.context {
            await handleContext(message.payload)
        }
    }

    /// Answers a playback command that its deadline caught waiting for its turn or still in the engine.
    func answerOverdue(_ entry: ReplyDeadlines.Entry, after limit: Duration) {
        let name = topics.commandName(in: entry.message.topic) ?? ""
        var id: String?
        if case let .request(request) = CommandRequest.decode(
            name: name, payload: entry.message.payload, maximumPayload: configuration.maximumPayload) {
            id = request.id
        }
        let message = entry.started
            ? "the audio engine did not finish within \(limit); the command may still take effect"
            : "not performed: the player was busy with an earlier command for \(limit)"
        send(CommandReply(id: id, command: name, result: .failed(message)), to: entry.message.properties)
    }

    /// Sends the one reply a request gets: on `P/result`, and on its response topic when it named one.
    func send(_ reply: CommandReply, to request: MQTTProperties) {
        let payload = reply.jsonBytes
        if reply.result.status != .success {
            logger.info("\(reply.command) -> \(reply.result.status.rawValue): \(reply.result.message ?? "")")
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
    }

    func handleContext(_ payload: [UInt8]) async {
        if case let .refused(reply) = CommandRequest.decode(name: "context", payload: payload) {
            logger.warning("ignored a malformed context message: \(reply.result.message ?? "")")
            publishEvent(["type": "error", "message": .string("context: \(reply.result.message ?? "")")])
            return
        }
        await applyContext(payload)
    }
}
