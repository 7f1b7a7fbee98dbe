import MediaNodeTesting
import Playback
import Testing

/// `setSleepTimer` on the playback lane with the in-memory engine and a manual clock: the fade heard at the
/// output (the gain's duck factor, never the listener's level), the pause at the end, cancel and refusals.
@Suite("Sleep timer")
struct PlaybackSleepTimerTests {
    /// Moves the clock in tenths of a second, letting the countdown run between steps, until `done` holds.
    func run(_ rig: PlaybackRig, seconds: Double, until done: @Sendable () async -> Bool = { false }) async {
        for _ in 0..<Int(seconds * 10) {
            if await done() { return }
            rig.clock.advance(by: 0.1)
            try? await Task.sleep(for: .milliseconds(2))
        }
    }

    @Test("minutes: now playing shows when it ends; the last seconds fade out, then it pauses at the listener's level")
    func afterMinutes() async {
        let rig = await PlaybackRig.loaded()
        await rig.level.setVolume(0.8)
        let start = rig.clock.now()
        #expect(await rig.controller.setSleepTimer(.after(seconds: 60, fadeOut: 10)) == .success)
        #expect(await rig.controller.snapshot.sleepTimer == SleepTimer(endsAt: start + 60, fadeOut: 10))
        #expect(rig.engine.outputGain.duck == 1, "no fade before the last ten seconds")

        await run(rig, seconds: 55)
        await rig.eventually { abs(rig.engine.outputGain.duck - 0.5) < 0.02 }
        #expect(await rig.controller.snapshot.state == .playing, "five seconds before the end it still plays, half down")
        #expect(await rig.level.state.volume == 0.8, "the fade never changes the listener's level")

        await run(rig, seconds: 10) { await rig.controller.snapshot.state == .paused }
        let after = await rig.controller.snapshot
        #expect(after.state == .paused && after.sleepTimer == nil)
        #expect(rig.engine.outputGain.duck == 1 && rig.engine.outputGain.level == 0.8, "paused, the level is given back for the next play")
        #expect(!rig.engine.isPlaying)
    }

    @Test("cancel takes the timer back, and what its fade took, at once")
    func cancel() async {
        let rig = await PlaybackRig.loaded()
        #expect(await rig.controller.setSleepTimer(.after(seconds: 5, fadeOut: 4)) == .success)
        await run(rig, seconds: 3)
        await rig.eventually { rig.engine.outputGain.duck < 0.9 }
        #expect(await rig.controller.setSleepTimer(.cancel) == .success)
        #expect(rig.engine.outputGain.duck == 1)
        #expect(await rig.controller.snapshot.sleepTimer == nil)
        await run(rig, seconds: 5)
        #expect(await rig.controller.snapshot.state == .playing, "a cancelled timer never pauses")
    }

    @Test("end of item: fades over the item's last seconds and pauses at the next item's start")
    func endOfItem() async {
        let rig = await PlaybackRig.loaded()
        #expect(await rig.controller.seek(to: 196) == .success)
        await rig.settle()
        #expect(await rig.controller.setSleepTimer(.endOfItem(fadeOut: 8)) == .success)
        #expect(await rig.controller.snapshot.sleepTimer == SleepTimer(endsAt: nil, fadeOut: 8))
        await rig.eventually { rig.engine.outputGain.duck < 0.6 }
        rig.engine.finishCurrentItem()
        await rig.settle()
        await rig.eventually { await rig.controller.snapshot.state == .paused }
        let after = await rig.controller.snapshot
        #expect(after.identifier == "track:2" && after.elapsed == 0, "paused at the next item's start")
        #expect(after.sleepTimer == nil)
        #expect(rig.engine.outputGain.duck == 1)
    }

    @Test("stop forgets the timer; nothing loaded and a live stream's end are refused")
    func refusals() async {
        let empty = PlaybackRig()
        #expect(await empty.controller.setSleepTimer(.after(seconds: 60, fadeOut: 10)) == .failed(.nothingLoaded))

        let rig = await PlaybackRig.loaded()
        #expect(await rig.controller.setSleepTimer(.after(seconds: 60, fadeOut: 10)) == .success)
        #expect(await rig.controller.stop() == .success)
        #expect(await rig.controller.snapshot.sleepTimer == nil)

        let radio = PlaybackRig()
        let station = QueueItem(identifier: "radio:1", uri: "http://radio/stream", title: "Radio One", isLiveStream: true)
        #expect(await radio.controller.setQueue([station], play: true) == .success)
        await radio.settle()
        let refused = await radio.controller.setSleepTimer(.endOfItem(fadeOut: 10))
        #expect(!refused.isSuccess, "a live stream has no end")
        #expect(await radio.controller.setSleepTimer(.after(seconds: 60, fadeOut: 10)) == .success, "minutes work on a radio")
    }
}
