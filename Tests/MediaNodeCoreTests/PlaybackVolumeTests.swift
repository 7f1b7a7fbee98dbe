import MediaNodeTesting
import Playback
import Testing

/// The listener's level, mute and ducking as the output hears them (the output level, with the transport's
/// ducks): the engine's volume is the level cubed, times the duck level while a duck lasts, and zero while muted.
@Suite("Playback volume")
struct PlaybackVolumeTests {
    @Test("the output is the level cubed, and the snapshot shows the level itself")
    func cubicCurve() async {
        let rig = PlaybackRig()
        await rig.level.setVolume(0.5)
        #expect(rig.engine.volume == 0.125)
        #expect(await rig.level.state.volume == 0.5)
        await rig.level.setVolume(1.7)
        let clamped = await rig.level.state.volume
        #expect(rig.engine.volume == 1 && clamped == 1, "clamped to 1")
    }

    @Test("up and down move by the step and stop at the ends")
    func steps() async {
        let rig = PlaybackRig()
        #expect(await rig.level.stepVolume(by: 0.05) == 1, "up at 1.0 stays")
        for _ in 0..<3 { _ = await rig.level.stepVolume(by: -0.05) }
        #expect(await rig.level.state.volume == 0.85)
        for _ in 0..<30 { _ = await rig.level.stepVolume(by: -0.05) }
        #expect(await rig.level.stepVolume(by: -0.05) == 0, "down at 0 stays")
        #expect(rig.engine.volume == 0)
    }

    @Test("a duck lowers the output below the level without changing it, and its end returns to the level")
    func duckCombines() async {
        let rig = await PlaybackRig.loaded()
        await rig.level.setVolume(0.5)
        #expect(await rig.controller.beginInterruption(duck: true) == .success)
        #expect(isClose(rig.engine.volume, 0.125 * 0.2))
        #expect(await rig.level.state.volume == 0.5, "a duck never changes the listener's level")
        await rig.level.setVolume(1)
        #expect(isClose(rig.engine.volume, 0.2), "a level change during a duck stays ducked")
        #expect(await rig.controller.endInterruption(shouldResume: true) == .success)
        #expect(rig.engine.volume == 1, "unducking returns to the listener's level")
    }

    @Test("mute silences the output and keeps the level; unmute brings it back")
    func mute() async {
        let rig = await PlaybackRig.loaded()
        await rig.level.setVolume(0.8)
        await rig.level.setMuted(true)
        #expect(rig.engine.volume == 0)
        let muted = await rig.level.state
        #expect(muted.isMuted && muted.volume == 0.8)
        await rig.level.setMuted(true)
        #expect(await rig.level.state.isMuted, "the target state, not a toggle")
        await rig.level.setVolume(0.5)
        #expect(rig.engine.volume == 0, "a level change while muted stays silent")
        await rig.level.setMuted(false)
        #expect(rig.engine.volume == 0.125)
    }

    func isClose(_ value: Double, _ expected: Double) -> Bool { abs(value - expected) < 1e-9 }
}
