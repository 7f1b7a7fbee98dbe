import MediaJSON
import MediaNode
import MediaNodeTesting
import RemoteCommands
import Synchronization
import Testing

/// What the command center answers on the transport's thread, without waiting: refusals, and commands
/// whose one handler can answer from memory. Everything else must take its turn on a lane.
@Suite("Remote command center: immediate answers")
struct ImmediateAnswerTests {
    static func answer(_ center: RemoteCommandCenter, _ name: String, _ payload: String = "") -> CommandReply? {
        center.answerImmediately(name: name, payload: Array(payload.utf8))
    }

    @Test("a refused request is answered at once, with the same reply handle gives")
    func refusals() async {
        let center = RemoteCommandCenter()
        center.addHandler(for: .browse) { _ in .success }
        center.addHandler(for: .like) { _ in .success }
        center.setEnabled(false, for: .like)
        for (name, payload) in [("browse", "{"), ("browse", #"{"indexPath":"x"}"#), ("fly", "{}"), ("like", "{}"),
                                ("play", "{}")] {
            let immediate = Self.answer(center, name, payload)
            let queued = await center.handle(name: name, payload: Array(payload.utf8))
            #expect(immediate != nil, "\(name) \(payload) is refused without waiting")
            #expect(immediate == queued)
            #expect(immediate?.result.status == .commandFailed)
        }
    }

    @Test("a valid request waits for its lane unless its one handler answers from memory")
    func validRequests() {
        let center = RemoteCommandCenter()
        let asked = Mutex(0)
        center.addHandler(for: .pause) { _ in .success }
        center.addHandler(for: .browse, immediate: { request in
            asked.withLock { $0 += 1 }
            guard request.indexPath == [0] else { return nil }
            return .success(data: ["title": "Library"])
        }) { _ in .failed("the slow path") }

        #expect(Self.answer(center, "pause", "{}") == nil, "no immediate handler: the lane answers")
        let known = Self.answer(center, "browse", #"{"indexPath":[0],"id":"a"}"#)
        #expect(known?.result.status == .success)
        #expect(known?.id == "a")
        #expect(known?.result.data?["title"] == "Library")
        #expect(Self.answer(center, "browse", #"{"indexPath":[1]}"#) == nil, "not in memory: the lane answers")
        #expect(asked.withLock { $0 } == 2)
    }

    @Test("a second handler for the command sends every request through the lane")
    func chainedHandlers() {
        let center = RemoteCommandCenter()
        center.addHandler(for: .browse, immediate: { _ in .success }) { _ in .success }
        #expect(Self.answer(center, "browse", #"{"indexPath":[]}"#)?.result.status == .success)
        let second = center.addHandler(for: .browse) { _ in .success }
        #expect(Self.answer(center, "browse", #"{"indexPath":[]}"#) == nil, "the chain must run in order")
        center.removeHandler(second)
        #expect(Self.answer(center, "browse", #"{"indexPath":[]}"#)?.result.status == .success)
    }
}
