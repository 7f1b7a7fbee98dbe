import MediaNodeTesting
import Playback
import Testing

@Suite("A queue restored after a restart")
struct PlaybackControllerRestoreTests {
    static func restored(_ rig: PlaybackRig, current: Int = 2, position: Double = 42, rate: Double = 1.5) async {
        let items = PlaybackRig.tracks(4)
        let queue = PlaybackQueue(
            restoring: items, order: [3, 1, 2, 0], currentIndex: current, repeatMode: .all, shuffleMode: .items)
        await rig.controller.restore(try! #require(queue), position: position, rate: rate)
    }

    @Test("shows the saved entry paused at the saved place, in the saved play order, without loading anything")
    func showsPausedWithoutLoading() async throws {
        let rig = PlaybackRig()
        await Self.restored(rig)
        let snapshot = await rig.controller.snapshot
        #expect(snapshot.state == .paused)
        #expect(snapshot.item?.identifier == "track:3")
        #expect(snapshot.elapsed == 42 && snapshot.playbackRate == 0 && snapshot.rate == 1.5)
        #expect(snapshot.queue.identifiers == ["track:4", "track:2", "track:3", "track:1"])
        #expect(snapshot.queue.index == 2 && snapshot.queue.repeatMode == .all && snapshot.queue.shuffleMode == .items)
        #expect(rig.engine.calls.isEmpty, "\(rig.engine.calls)")
    }

    @Test("play loads the item at the saved place, at the saved rate, and plays")
    func playLoadsAtThePlace() async throws {
        let rig = PlaybackRig()
        await Self.restored(rig)
        #expect(await rig.controller.play() == .success)
        await rig.settle()
        guard case let .load(uri, _, startAt, next)? = rig.engine.calls.first else {
            Issue.record("no load: \(rig.engine.calls)")
            return
        }
        #expect(uri == "file:///music/track3.ogg" && startAt == 42)
        #expect(next?.uri == "file:///music/track1.ogg", "the next in play order is preloaded")
        #expect(rig.engine.calls.contains(.setRate(1.5)) && rig.engine.calls.contains(.play))
        #expect(await rig.controller.snapshot.state == .playing)
    }

    @Test("a seek before play moves the place play starts from; pause is refused as already paused")
    func seekBeforePlay() async throws {
        let rig = PlaybackRig()
        await Self.restored(rig)
        #expect(await rig.controller.seek(to: 100) == .success)
        #expect(await rig.controller.snapshot.elapsed == 100)
        #expect(await rig.controller.pause() == .failed(.alreadyPaused))
        #expect(rig.engine.calls.isEmpty)
        #expect(await rig.controller.play() == .success)
        guard case let .load(_, _, startAt, _)? = rig.engine.calls.first else {
            Issue.record("no load: \(rig.engine.calls)")
            return
        }
        #expect(startAt == 100)
    }

    @Test("nextTrack moves on in the saved order, paused; stop empties the queue")
    func nextAndStop() async throws {
        let rig = PlaybackRig()
        await Self.restored(rig)
        #expect(await rig.controller.nextTrack() == .success)
        let snapshot = await rig.controller.snapshot
        #expect(snapshot.item?.identifier == "track:1" && snapshot.state == .paused && snapshot.elapsed == 0)
        #expect(await rig.controller.stop() == .success)
        #expect(await rig.controller.snapshot.queue.identifiers.isEmpty)
    }

    @Test("an order that does not fit the items is no queue")
    func badOrder() {
        let items = PlaybackRig.tracks(3)
        #expect(PlaybackQueue(restoring: items, order: [0, 1], currentIndex: 0, repeatMode: .off, shuffleMode: .off) == nil)
        #expect(PlaybackQueue(restoring: items, order: [0, 1, 1], currentIndex: 0, repeatMode: .off, shuffleMode: .off) == nil)
        #expect(PlaybackQueue(restoring: items, order: [2, 1, 0], currentIndex: 3, repeatMode: .off, shuffleMode: .off) == nil)
    }
}
