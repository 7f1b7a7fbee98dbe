import MQTTTransport
import Synchronization
import Testing
@testable import MediaNode

/// The looks that answer overdue playback commands: on the coarse sweep, from the first pending command
/// until none is pending, and only while watched.
@Suite("Reply deadlines")
struct ReplyDeadlinesTests {
    private static func message(_ name: String) -> MQTTMessage {
        MQTTMessage(topic: "medianode/car1/cmd/\(name)", payload: [])
    }

    /// Waits up to `limit` for `answered` to hold `count` entries.
    private static func answered(_ answered: borrowing Mutex<[String]>, count: Int, within limit: Duration) async -> [String] {
        let clock = ContinuousClock()
        let end = clock.now + limit
        while clock.now < end, answered.withLock({ $0.count }) < count {
            try? await Task.sleep(for: .milliseconds(20))
        }
        return answered.withLock { $0 }
    }

    @Test("a command admitted before the lanes watch is answered once they do; one the lane finishes is not")
    func admittedBeforeWatching() async {
        let deadlines = ReplyDeadlines(limit: .milliseconds(100))
        let stalled = deadlines.admit(Self.message("seek"))
        let finished = deadlines.admit(Self.message("pause"))
        #expect(deadlines.start(stalled) && deadlines.start(finished))
        #expect(deadlines.finish(finished))
        // Past the first look (250 ms) with nobody watching: the looks must go on until someone does.
        try? await Task.sleep(for: .milliseconds(600))
        let answered = Mutex<[String]>([])
        deadlines.watch { overdue in
            answered.withLock { $0 += overdue.map(\.message.topic) }
        }
        let topics = await Self.answered(answered, count: 1, within: .seconds(10))
        #expect(topics == ["medianode/car1/cmd/seek"])
        #expect(deadlines.isEmpty)
        #expect(!deadlines.finish(stalled), "answered by its deadline, so the lane's late answer is dropped")
    }

    @Test("after finishWatching nothing more is answered")
    func finished() async {
        let deadlines = ReplyDeadlines(limit: .milliseconds(50))
        let answered = Mutex<[String]>([])
        deadlines.watch { overdue in answered.withLock { $0 += overdue.map(\.message.topic) } }
        deadlines.finishWatching()
        _ = deadlines.admit(Self.message("play"))
        try? await Task.sleep(for: .milliseconds(800))
        #expect(answered.withLock { $0 }.isEmpty)
    }
}
