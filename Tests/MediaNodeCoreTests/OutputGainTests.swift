import Foundation
import MediaNodeTesting
import Playback
import Testing

/// The one gain stage as arithmetic: every factor multiplied once, never past the item's peak.
@Suite("Output gain")
struct OutputGainTests {
    @Test("level cubed, duck, speed and loudness gains multiply; mute is zero")
    func factorsMultiply() {
        let gain = OutputGain(level: 0.5, duck: 0.2, isMuted: false, speedDb: 6)
        let item = ItemGain(loudnessDb: -6, peak: 0.1)
        #expect(abs(gain.amplitude(speedDb: 6, item: item) - 0.125 * 0.2) < 1e-9, "+6 and -6 dB cancel")
        #expect(abs(gain.amplitude(speedDb: 0, item: .unity) - 0.025) < 1e-9)
        var muted = gain
        muted.isMuted = true
        #expect(muted.amplitude(speedDb: 12, item: item) == 0)
    }

    @Test("the gain never takes the item's peak past full scale, and an unknown peak counts as full scale")
    func peakLimit() {
        let full = OutputGain(level: 1, speedDb: 12)
        #expect(full.amplitude(speedDb: 12, item: .unity) == 1, "no boost above unity without a known peak")
        #expect(abs(full.amplitude(speedDb: 12, item: ItemGain(loudnessDb: 0, peak: 0.5)) - 2) < 1e-9)
        #expect(full.amplitude(speedDb: 0, item: ItemGain(loudnessDb: 60, peak: 1)) == 1, "+60 dB on a full-scale file")
        #expect(full.amplitude(speedDb: 0, item: ItemGain(loudnessDb: 60, peak: 1e-9)) == OutputGain.maximumAmplitude)
    }

    @Test("absurd factors fall back to safe values")
    func absurdFactors() {
        let item = ItemGain(loudnessDb: .nan, peak: -3)
        #expect(item == .unity)
        let gain = OutputGain(level: .nan, duck: 7, isMuted: false, speedDb: .infinity)
        #expect(gain.amplitude(speedDb: .infinity, item: .unity) == 0, "a NaN level is silence, not noise")
        let loud = OutputGain(level: 3, duck: 7, isMuted: false, speedDb: 1e300)
        #expect(loud.amplitude(speedDb: 1e300, item: .unity) == 1)
    }

    @Test("speed gain: dB per 100 km/h, linear, at most +12, and a reading that is no speed is refused")
    func speedVolume() {
        let volume = SpeedVolume(dbPer100: 6)
        #expect(volume.gainDb(atSpeed: 0) == 0)
        #expect(volume.gainDb(atSpeed: 50) == 3)
        #expect(volume.gainDb(atSpeed: 100) == 6)
        #expect(volume.gainDb(atSpeed: 300) == 12)
        for bad in [-5, 1e300, .nan, .infinity, 1001] { #expect(volume.gainDb(atSpeed: bad) == nil, "\(bad)") }
        #expect(SpeedVolume(dbPer100: 0).gainDb(atSpeed: 130) == 0)
    }

    @Test("the output level hands the engine its speed target and shows it, without changing volume")
    func controllerSpeedGain() async {
        let rig = PlaybackRig()
        await rig.level.setVolume(0.5)
        await rig.level.setSpeedGain(6)
        #expect(rig.engine.outputGain == OutputGain(level: 0.5, speedDb: 6))
        #expect(abs(rig.engine.volume - 0.125 * pow(10, 0.3)) < 1e-9)
        let shown = await rig.level.state
        #expect(shown.speedGainDb == 6 && shown.volume == 0.5)
        await rig.level.setSpeedGain(40)
        #expect(rig.engine.outputGain.speedDb == 12, "clamped to +12 dB")
    }
}
