import Foundation
import Logging
import MQTTTransport
import MediaNodeTesting
import Playback
import RemoteCommands
import ServiceLifecycle
import Synchronization
import Testing
@testable import MediaNode

/// The services run on their own parts and a narrow protocol each, with no node behind them: what a
/// service asks of the rest of the node is all there is to stand in for.
@Suite("Services stand on narrow protocols, not on the node")
struct ServiceSeamTests {
    /// Records what a service asked of the rest of the node, in order.
    final class Recorder: Sendable {
        private let entries = Mutex<[String]>([])
        func record(_ entry: String) { entries.withLock { $0.append(entry) } }
        var recorded: [String] { entries.withLock { $0 } }
    }

    struct Stopping: PlaybackObserver {
        let recorder: Recorder
        let engine: InMemoryAudioEngine
        func audioStopping() async {
            recorder.record(engine.calls.contains(.shutdown) ? "settled after the audio stopped" : "settled")
        }
    }

    @Test("a graceful stop of the playback service settles the position first, then stops the audio")
    func playbackServiceSettlesBeforeTheAudioStops() async throws {
        let engine = InMemoryAudioEngine(clock: ManualPlaybackClock())
        let recorder = Recorder()
        let ready = Latch()
        ready.open()
        let service = PlaybackService(
            ready: ready, playback: PlaybackController(engine: engine), engine: engine,
            observers: [Stopping(recorder: recorder, engine: engine)])
        let group = ServiceGroup(configuration: .init(services: [service], logger: Logger(label: "test")))
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            try await Task.sleep(for: .milliseconds(50))
            #expect(recorder.recorded.isEmpty)
            #expect(!engine.calls.contains(.shutdown))
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
        }
        #expect(recorder.recorded == ["settled"])
        #expect(engine.calls.last == .shutdown)
    }

    /// Answers by recording what it was asked; `pause` and `browse` stand for the two lanes.
    struct Answering: CommandAnswering {
        let recorder: Recorder
        func handleHomeAssistantBirth(_ message: MQTTMessage) -> Bool { false }
        func isContentMessage(_ message: MQTTMessage) -> Bool { message.topic.hasSuffix("/browse") }
        func answerAtOnce(_ message: MQTTMessage) -> Bool { false }
        func handle(_ message: MQTTMessage, settled: () -> Bool) async {
            recorder.record("handled \(message.topic)")
        }
        func waitUntilStateShown() async {}
        func send(_ reply: CommandReply, to request: MQTTMessage) { recorder.record("sent \(reply.command)") }
        func answerOverdue(_ entry: ReplyDeadlines.Entry, after limit: Duration) {
            recorder.record("overdue \(entry.message.topic)")
        }
        func refuseWhileShuttingDown(_ message: MQTTMessage) { recorder.record("refused \(message.topic)") }
    }

    @Test("the commands service answers each lane's messages through its protocol, and refuses once it stopped")
    func commandsServiceAnswersThenRefuses() async throws {
        let recorder = Recorder()
        let answering = Answering(recorder: recorder)
        let lanes = InboundLanes(replyDeadline: .seconds(10))
        let service = InboundService(lanes: lanes, answering: answering, playbackExecutor: nil)
        let group = ServiceGroup(configuration: .init(services: [service], logger: Logger(label: "test")))
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            lanes.route(MQTTMessage(topic: "medianode/car1/cmd/pause", payload: []), to: answering)
            lanes.route(MQTTMessage(topic: "medianode/car1/cmd/browse", payload: []), to: answering)
            let deadline = ContinuousClock.now + .seconds(10)
            while recorder.recorded.count < 2, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(10))
            }
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
        }
        lanes.route(MQTTMessage(topic: "medianode/car1/cmd/play", payload: []), to: answering)
        #expect(Set(recorder.recorded.prefix(2)) == ["handled medianode/car1/cmd/pause", "handled medianode/car1/cmd/browse"])
        #expect(recorder.recorded.dropFirst(2) == ["refused medianode/car1/cmd/play"])
    }
}
