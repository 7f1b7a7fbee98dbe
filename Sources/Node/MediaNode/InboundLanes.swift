import MQTTTransport
import RemoteCommands
import Synchronization

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
            let limit = deadlines.limit
            deadlines.watch { overdue in
                for entry in overdue { answerer.answerOverdue(entry, after: limit) }
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
            deadlines.finishWatching()
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
