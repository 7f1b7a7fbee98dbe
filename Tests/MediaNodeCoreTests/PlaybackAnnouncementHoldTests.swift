import MediaNodeTesting
import Playback
import Testing

/// What announcements do to the music, on the controller with the in-memory engine.
@Suite("Music under announcements")
struct PlaybackAnnouncementHoldTests {
    @Test("duck lowers the output to the interrupt duck's level, keeps playing, and the release restores the level")
    func duck() async {
        let rig = await PlaybackRig.loaded()
        await rig.controller.holdForAnnouncement(.duck)
        #expect(isClose(rig.engine.volume, 0.2))
        #expect(await rig.controller.snapshot.state == .playing)
        await rig.controller.releaseAfterAnnouncements()
        #expect(rig.engine.volume == 1)
    }

    @Test("pause shows interrupted with the position standing, and the release plays on from the same place")
    func pause() async {
        let rig = await PlaybackRig.loaded()
        rig.clock.advance(by: 12)
        await rig.controller.holdForAnnouncement(.pause)
        let held = await rig.controller.snapshot
        #expect(held.state == .interrupted)
        let heldAt = held.elapsed(at: rig.clock.now())
        rig.clock.advance(by: 5)
        #expect(isClose(await rig.controller.snapshot.elapsed(at: rig.clock.now()), heldAt), "the position stands while paused")
        await rig.controller.holdForAnnouncement(.duck)
        #expect(await rig.controller.snapshot.state == .interrupted, "once paused it stays paused for the next clip")
        await rig.controller.releaseAfterAnnouncements()
        let resumed = await rig.controller.snapshot
        #expect(resumed.state == .playing)
        #expect(isClose(resumed.elapsed(at: rig.clock.now()), heldAt), "it plays on from where it paused")
        #expect(rig.engine.volume == 1)
    }

    @Test("a listener who pauses during a pause-mode clip keeps it paused; music not playing is left alone")
    func listenerTakesOver() async {
        let rig = await PlaybackRig.loaded()
        await rig.controller.holdForAnnouncement(.pause)
        #expect(await rig.controller.pause() == .success)
        await rig.controller.releaseAfterAnnouncements()
        #expect(await rig.controller.snapshot.state == .paused)

        await rig.controller.holdForAnnouncement(.pause)
        #expect(await rig.controller.snapshot.state == .paused, "paused music is not interrupted")
        await rig.controller.releaseAfterAnnouncements()
        #expect(await rig.controller.snapshot.state == .paused, "and not started by the release")
    }

    @Test("an interrupt duck and an announcement duck together: the music comes back only when both ended")
    func withInterrupt() async {
        let rig = await PlaybackRig.loaded()
        #expect(await rig.controller.beginInterruption(duck: true) == .success)
        await rig.controller.holdForAnnouncement(.duck)
        await rig.controller.releaseAfterAnnouncements()
        #expect(isClose(rig.engine.volume, 0.2), "the interrupt still ducks")
        #expect(await rig.controller.endInterruption(shouldResume: true) == .success)
        #expect(rig.engine.volume == 1)
    }
}

private func isClose(_ value: Double, _ expected: Double) -> Bool { abs(value - expected) < 1e-6 }
