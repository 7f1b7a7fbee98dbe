import MediaNodeTesting
import Playback
import Synchronization
import Testing

/// The outcomes a setQueue `onStart` callback received.
final class StartOutcomes: Sendable {
    private let storage = Mutex<[PlaybackOutcome]>([])
    var callback: @Sendable (PlaybackOutcome) -> Void { { outcome in self.storage.withLock { $0.append(outcome) } } }
    var all: [PlaybackOutcome] { storage.withLock { $0 } }
}

@Suite("Playback controller: telling a caller when its item really starts (S24)")
struct PlaybackControllerStartTests {
    /// A rig whose engine is slow to start every item.
    static func slowRig() -> PlaybackRig {
        let rig = PlaybackRig()
        rig.engine.holdStarts(true)
        return rig
    }

    @Test("onStart hears success only once the item produces audio")
    func successOnceStarted() async {
        let rig = Self.slowRig()
        let outcomes = StartOutcomes()
        #expect(await rig.controller.setQueue(PlaybackRig.tracks(2), play: true, onStart: outcomes.callback) == .success)
        await rig.settle()
        #expect(outcomes.all.isEmpty, "told before any sound")
        rig.engine.startCurrentItem()
        await rig.eventually { outcomes.all == [.success] }
    }

    @Test("a pause, a stop or another queue before the first sound tells the waiting caller why it never started")
    func supersededBeforeStart() async {
        let rig = Self.slowRig()
        let paused = StartOutcomes(), replaced = StartOutcomes(), stopped = StartOutcomes()

        await rig.controller.setQueue(PlaybackRig.tracks(2), play: true, onStart: paused.callback)
        #expect(await rig.controller.pause() == .success)
        #expect(paused.all == [.failed(.invalid("paused before the item started"))])

        await rig.controller.setQueue(PlaybackRig.tracks(2), play: true, onStart: replaced.callback)
        await rig.controller.setQueue(PlaybackRig.tracks(2, prefix: "other"), play: true, onStart: stopped.callback)
        #expect(replaced.all == [.failed(.invalid("replaced before it started"))])

        #expect(await rig.controller.stop() == .success)
        #expect(stopped.all == [.failed(.invalid("stopped before the item started"))])
        // A start that never came stays untold after that: nothing is answered twice.
        rig.engine.startCurrentItem()
        await rig.settle()
        #expect(paused.all.count == 1 && replaced.all.count == 1 && stopped.all.count == 1)
    }

    @Test("a load that fails answers with its outcome and never calls onStart")
    func failedLoadTellsNothing() async {
        let rig = Self.slowRig()
        let outcomes = StartOutcomes()
        for track in PlaybackRig.tracks(1) { rig.engine.failLoading(track.uri) }
        let outcome = await rig.controller.setQueue(PlaybackRig.tracks(1), play: true, onStart: outcomes.callback)
        #expect(outcome != .success)
        #expect(outcomes.all.isEmpty)
    }
}
