import MediaNodeTesting
import Playback
import Testing

/// addToQueue, removeFromQueue and moveQueueItem as the listener hears them: in play order, shuffled or
/// not, without interrupting the playing item unless it is the one removed.
@Suite("Queue editing")
struct PlaybackQueueEditingTests {
    static func identifiers(_ rig: PlaybackRig) async -> [String] { await rig.controller.snapshot.queue.identifiers }

    @Test("added items go right after the current one or at the end, and the playing item plays on")
    func add() async {
        let rig = await PlaybackRig.loaded(count: 3, startAt: 1)
        let loadsBefore = rig.engine.calls.filter { if case .load = $0 { true } else { false } }.count
        let extra = PlaybackRig.tracks(2, container: "album:B", prefix: "extra")
        #expect(await rig.controller.addToQueue([extra[0]], .afterCurrent) == .success)
        #expect(await rig.controller.addToQueue([extra[1]], .atEnd) == .success)
        #expect(await Self.identifiers(rig) == ["track:1", "track:2", "extra:1", "track:3", "extra:2"])
        let snapshot = await rig.controller.snapshot
        #expect(snapshot.queue.index == 1 && snapshot.item?.identifier == "track:2" && snapshot.state == .playing)
        let loadsAfter = rig.engine.calls.filter { if case .load = $0 { true } else { false } }.count
        #expect(loadsAfter == loadsBefore, "an insertion never reloads the playing item")
        #expect(rig.engine.preloadedURI == extra[0].uri, "what plays next gaplessly follows the edit")
    }

    @Test("with nothing loaded the added items become the queue, paused")
    func addToEmpty() async {
        let rig = PlaybackRig()
        #expect(await rig.controller.addToQueue(PlaybackRig.tracks(2), .afterCurrent) == .success)
        let snapshot = await rig.controller.snapshot
        #expect(snapshot.state == .paused && snapshot.queue.index == 0 && snapshot.queue.count == 2)
    }

    @Test("removing an entry before the current one keeps the current item and shifts its index")
    func removeBefore() async {
        let rig = await PlaybackRig.loaded(count: 4, startAt: 2)
        #expect(await rig.controller.removeFromQueue(at: 0) == .success)
        let snapshot = await rig.controller.snapshot
        #expect(snapshot.queue.identifiers == ["track:2", "track:3", "track:4"])
        #expect(snapshot.queue.index == 1 && snapshot.item?.identifier == "track:3" && snapshot.state == .playing)
    }

    @Test("removing the next entry drops it from the gapless preload")
    func removePreloaded() async {
        let rig = await PlaybackRig.loaded(count: 3, startAt: 0)
        #expect(rig.engine.preloadedURI == PlaybackRig.tracks(3)[1].uri)
        #expect(await rig.controller.removeFromQueue(at: 1) == .success)
        #expect(rig.engine.preloadedURI == PlaybackRig.tracks(3)[2].uri)
        #expect(await rig.controller.removeFromQueue(at: 1) == .success)
        #expect(rig.engine.preloadedURI == nil, "the removed item never plays")
    }

    @Test("removing the current item moves to the next one as it was (playing or paused), or stops at the end")
    func removeCurrent() async {
        let rig = await PlaybackRig.loaded(count: 3, startAt: 1)
        #expect(await rig.controller.removeFromQueue(at: 1) == .success)
        var snapshot = await rig.controller.snapshot
        #expect(snapshot.item?.identifier == "track:3" && snapshot.queue.index == 1 && snapshot.state == .playing)
        #expect(rig.engine.loadedURI == PlaybackRig.tracks(3)[2].uri)

        #expect(await rig.controller.pause() == .success)
        #expect(await rig.controller.removeFromQueue(at: 1) == .success)
        snapshot = await rig.controller.snapshot
        #expect(snapshot.item == nil && snapshot.state == .stopped, "the last entry removed: stopped")
        #expect(snapshot.queue.identifiers == ["track:1"])

        let paused = await PlaybackRig.loaded(count: 3, startAt: 0, play: false)
        #expect(await paused.controller.removeFromQueue(at: 0) == .success)
        snapshot = await paused.controller.snapshot
        #expect(snapshot.item?.identifier == "track:2" && snapshot.state == .paused, "paused stays paused")
    }

    @Test("moving entries keeps the playing item playing and current")
    func move() async {
        let rig = await PlaybackRig.loaded(count: 4, startAt: 1)
        #expect(await rig.controller.moveQueueItem(from: 1, to: 3) == .success)
        var snapshot = await rig.controller.snapshot
        #expect(snapshot.queue.identifiers == ["track:1", "track:3", "track:4", "track:2"])
        #expect(snapshot.queue.index == 3 && snapshot.item?.identifier == "track:2" && snapshot.state == .playing)
        #expect(await rig.controller.moveQueueItem(from: 0, to: 3) == .success)
        snapshot = await rig.controller.snapshot
        #expect(snapshot.queue.identifiers == ["track:3", "track:4", "track:2", "track:1"])
        #expect(snapshot.queue.index == 2)
        #expect(rig.engine.preloadedURI == PlaybackRig.tracks(4)[0].uri, "track:1 now plays next")
    }

    @Test("with shuffle on, edits apply to the shuffled order the listener hears")
    func shuffled() async {
        let rig = await PlaybackRig.loaded(count: 5, startAt: 0)
        #expect(await rig.controller.setShuffleMode(.items) == .success)
        let heard = await Self.identifiers(rig)
        #expect(await rig.controller.moveQueueItem(from: 4, to: 1) == .success)
        var expected = heard
        expected.insert(expected.remove(at: 4), at: 1)
        #expect(await Self.identifiers(rig) == expected)
        #expect(await rig.controller.removeFromQueue(at: 2) == .success)
        expected.remove(at: 2)
        #expect(await Self.identifiers(rig) == expected)
        let extra = PlaybackRig.tracks(1, prefix: "extra")
        #expect(await rig.controller.addToQueue(extra, .afterCurrent) == .success)
        expected.insert("extra:1", at: 1)
        #expect(await Self.identifiers(rig) == expected)
        #expect(await rig.controller.snapshot.item?.identifier == "track:1")
    }

    @Test("an index outside the queue is refused and changes nothing")
    func outOfRange() async {
        let rig = await PlaybackRig.loaded(count: 2)
        guard case let .failed(.invalid(message)) = await rig.controller.removeFromQueue(at: 2) else {
            Issue.record("index 2 of 2 was not refused")
            return
        }
        #expect(message.contains("outside the queue of 2 entries"))
        guard case .failed(.invalid) = await rig.controller.moveQueueItem(from: 0, to: 5) else {
            Issue.record("to 5 of 2 was not refused")
            return
        }
        #expect(await Self.identifiers(rig) == ["track:1", "track:2"])
    }
}
