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

    /// The output amplitude: the level cubed (the curve desktop mixers use, so 0.5 sounds about half as
    /// loud), times the duck level while a duck lasts, and zero while muted.
    var outputVolume: Double {
        guard !isMuted else { return 0 }
        let duck = interruption?.ducked == true ? configuration.duckVolume : 1
        return volume * volume * volume * duck
    }

    func applyOutputVolume() async {
        await engine.setVolume(outputVolume)
    }
}
