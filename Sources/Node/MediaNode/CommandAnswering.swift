import MQTTTransport
import RemoteCommands

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
