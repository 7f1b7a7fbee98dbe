// MARK: - Volume and mute (the listener's level, and what ducking does to the output)

extension PlaybackController {
    /// Sets the listener's level, 0...1 (clamped). A duck in progress stays: the output stays below the level.
    @discardableResult
    public func setVolume(_ level: Double) async -> PlaybackOutcome {
        await exclusively {
            volume = min(1, max(0, level))
            await applyOutputVolume()
            publish()
            return .success
        }
    }

    /// Moves the level by `step` (negative: down), stopping at 0 and 1; returns the new level.
    public func stepVolume(by step: Double) async -> Double {
        await exclusively {
            // Rounded to the step's grid, so twenty steps of 0.05 land on 1 exactly, not 0.9999999.
            let raw = min(1, max(0, volume + step))
            volume = (raw * 1_000_000).rounded() / 1_000_000
            await applyOutputVolume()
            publish()
            return volume
        }
    }

    /// Silences the output, or brings back the level; the target state, never a toggle.
    @discardableResult
    public func setMuted(_ muted: Bool) async -> PlaybackOutcome {
        await exclusively {
            isMuted = muted
            await applyOutputVolume()
            publish()
            return .success
        }
    }

    /// Sets the speed-dependent gain the output moves to (dB, clamped to 0...12); the engine ramps to it.
    public func setSpeedGain(_ decibels: Double) async {
        await exclusively {
            speedGainDb = OutputGain.clamp(decibels, 0, SpeedVolume.maximumGainDb)
            await applyOutputVolume()
            publish()
        }
    }

    /// The factors of the output gain the controller decides for the whole session; each item's own gain
    /// rides with its load (see `giveItemGain`), and the engine multiplies them all in one place.
    var outputGain: OutputGain {
        OutputGain(
            level: volume, duck: isDucked ? configuration.duckVolume : 1, isMuted: isMuted,
            speedDb: speedGainDb)
    }

    /// An `interrupt` with `duck`, or an announcement in duck mode, lowers the music.
    var isDucked: Bool { interruption?.ducked == true || announcementHold == .duck }

    /// The output amplitude for an item with no gain of its own, the speed gain at its target.
    var outputVolume: Double { outputGain.amplitude(speedDb: speedGainDb, item: .unity) }

    func applyOutputVolume() async {
        await engine.setOutputGain(outputGain)
    }
}
