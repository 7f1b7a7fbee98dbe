import MediaNodeTesting
import Playback
import Testing

/// What the sound server's cork requests and a lost output mean, on the controller with the in-memory engine.
@Suite("The sound server's hold on the music")
struct PlaybackSoundServerTests {
    @Test("a cork holds playing music as interrupted with the position standing; the uncork plays on from the same place")
    func corkAndUncork() async {
        let rig = await PlaybackRig.loaded()
        rig.clock.advance(by: 30)
        rig.engine.serverFocus(false)
        await rig.settle()
        let held = await rig.controller.snapshot
        #expect(held.state == .interrupted)
        let heldAt = held.elapsed(at: rig.clock.now())
        rig.clock.advance(by: 20)
        #expect(await rig.controller.snapshot.elapsed(at: rig.clock.now()) == heldAt, "the position stands")
        rig.engine.serverFocus(true)
        await rig.settle()
        let resumed = await rig.controller.snapshot
        #expect(resumed.state == .playing)
        #expect(abs(resumed.elapsed(at: rig.clock.now()) - heldAt) < 1e-6, "from the same place")
        #expect(await rig.outputChanges(2) == [.focusLost, .focusRegained])
    }

    @Test("the listener's pause, stop or new choice during the hold stands after the uncork")
    func listenerActsDuringTheHold() async {
        let paused = await PlaybackRig.loaded()
        paused.engine.serverFocus(false)
        await paused.settle()
        #expect(await paused.controller.pause() == .success)
        paused.engine.serverFocus(true)
        await paused.settle()
        #expect(await paused.controller.snapshot.state == .paused)

        let stopped = await PlaybackRig.loaded()
        stopped.engine.serverFocus(false)
        await stopped.settle()
        #expect(await stopped.controller.stop() == .success)
        stopped.engine.serverFocus(true)
        await stopped.settle()
        #expect(await stopped.controller.snapshot.state == .stopped)

        let chosen = await PlaybackRig.loaded()
        chosen.engine.serverFocus(false)
        await chosen.settle()
        #expect(await chosen.controller.setQueue(PlaybackRig.tracks(2, prefix: "other"), play: true) == .success)
        await chosen.settle()
        chosen.clock.advance(by: 5)
        chosen.engine.serverFocus(true)
        await chosen.settle()
        let after = await chosen.controller.snapshot
        #expect(after.identifier == "other:1" && after.state == .playing)
        #expect(abs(after.elapsed(at: chosen.clock.now()) - 5) < 1e-6, "the new choice was not moved by the uncork")
    }

    @Test("music that was not playing is not started by the uncork, and an interrupt's end does not end the server's hold")
    func onlyWhatItHeld() async {
        let rig = await PlaybackRig.loaded(play: false)
        rig.engine.serverFocus(false)
        await rig.settle()
        #expect(await rig.controller.snapshot.state == .paused)
        rig.engine.serverFocus(true)
        await rig.settle()
        #expect(await rig.controller.snapshot.state == .paused)

        let held = await PlaybackRig.loaded()
        held.engine.serverFocus(false)
        await held.settle()
        #expect(await held.controller.endInterruption(shouldResume: true) == .success)
        #expect(await held.controller.snapshot.state == .interrupted, "the call still plays")
    }

    @Test("a lost output holds playing music where it was heard and tells the engine; its return plays on from there")
    func outputLostAndRestored() async {
        let rig = await PlaybackRig.loaded()
        rig.clock.advance(by: 42)
        rig.engine.loseSoundServer()
        await rig.settle()
        let held = await rig.controller.snapshot
        #expect(held.state == .interrupted)
        #expect(abs(held.elapsed(at: rig.clock.now()) - 42) < 1e-6)
        #expect(rig.engine.calls.contains(.seek(42)), "the engine holds the item at the place heard")
        #expect(await rig.controller.play() == .failed(.deviceLost("audio output disappeared")), "play answers deviceNotFound meanwhile")
        rig.clock.advance(by: 10)
        rig.engine.returnSoundServer()
        await rig.settle()
        let resumed = await rig.controller.snapshot
        #expect(resumed.state == .playing)
        #expect(abs(resumed.elapsed(at: rig.clock.now()) - 42) < 1e-6)
        #expect(await rig.outputChanges(2) == [.lost("the sound server at unix:/run/car/pulse/native does not answer"), .restored])
    }

    @Test("an item a command waits to hear, lost before its first sound: the command is answered deviceNotFound, and the output's return does not start it; play does")
    func lostBeforeTheFirstSound() async {
        let rig = PlaybackRig()
        rig.engine.holdStarts(true)
        let outcomes = StartOutcomes()
        #expect(await rig.controller.setQueue(PlaybackRig.tracks(2), play: true, onStart: outcomes.callback) == .success)
        await rig.settle()
        rig.engine.loseSoundServer()
        await rig.settle()
        await rig.eventually { outcomes.all.count == 1 }
        #expect(outcomes.all == [.failed(.deviceLost("the sound server at unix:/run/car/pulse/native does not answer"))])
        #expect(await rig.controller.snapshot.state == .paused)
        rig.engine.returnSoundServer()
        await rig.settle()
        #expect(await rig.controller.snapshot.state == .paused, "the refusal stands")
        rig.engine.holdStarts(false)
        #expect(await rig.controller.play() == .success)
        #expect(await rig.controller.snapshot.state == .playing)
    }

    @Test("a pause while the output is lost stands after its return; a call's hold ends with the server's return")
    func pauseWhileLost() async {
        let rig = await PlaybackRig.loaded()
        rig.engine.loseSoundServer()
        await rig.settle()
        #expect(await rig.controller.pause() == .success)
        rig.engine.returnSoundServer()
        await rig.settle()
        #expect(await rig.controller.snapshot.state == .paused)

        let called = await PlaybackRig.loaded()
        called.clock.advance(by: 12)
        called.engine.serverFocus(false)
        await called.settle()
        called.clock.advance(by: 3)
        called.engine.loseSoundServer()
        await called.settle()
        called.engine.returnSoundServer()
        await called.settle()
        #expect(await called.controller.snapshot.state == .playing, "a restarted server has no call to wait for")
        #expect(abs(await called.controller.snapshot.elapsed(at: called.clock.now()) - 12) < 1e-6)
    }

    /// A sink asked after its server died reads where it was last started: the engine holds what the core
    /// says, not that reading.
    @Test("music held for a call or paused when the server goes: the engine is told the place it stands at, so the return plays on from there")
    func heldWhenLost() async {
        for pausedByListener in [false, true] {
            let rig = await PlaybackRig.loaded()
            rig.clock.advance(by: 12)
            if pausedByListener {
                #expect(await rig.controller.pause() == .success)
            } else {
                rig.engine.serverFocus(false)
                await rig.settle()
            }
            rig.clock.advance(by: 3)
            rig.engine.loseSoundServer(heard: 0)
            await rig.settle()
            #expect(rig.engine.calls.last == .seek(12), "paused by the listener: \(pausedByListener)")
            rig.engine.returnSoundServer()
            await rig.settle()
            if pausedByListener { #expect(await rig.controller.play() == .success) }
            rig.clock.advance(by: 1)
            #expect(await rig.engine.position() == 13, "plays on from the place it stood at (paused by the listener: \(pausedByListener))")
        }
    }
}

extension PlaybackRig {
    /// The output's changes among the events, once `count` have arrived (the events stream is read by a task).
    func outputChanges(_ count: Int) async -> [OutputChange] {
        let recorder = recorder
        @Sendable func changes() -> [OutputChange] {
            recorder.events.compactMap { if case let .output(change) = $0 { change } else { nil } }
        }
        await eventually { changes().count >= count }
        return changes()
    }
}
