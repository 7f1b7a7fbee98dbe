// MARK: - Interruptions (the `interrupt` command: a phone call, a navigation prompt)

/// An interruption in progress.
struct Interruption {
    /// Whether audio was playing when it began.
    var wasPlaying: Bool
    /// Whether it lowered the volume instead of pausing.
    var ducked: Bool
}

extension PlaybackController {
    /// Begins an interruption: pauses (state `interrupted`), or with `duck` lowers the volume and keeps
    /// playing. With nothing loaded there is nothing to interrupt, and it succeeds.
    @discardableResult
    public func beginInterruption(duck: Bool = false) async -> PlaybackOutcome {
        await exclusively {
            guard queue.currentItem != nil, interruption == nil else { return .success }
            let wasPlaying = state == .playing
            if duck {
                interruption = Interruption(wasPlaying: wasPlaying, ducked: true)
                await applyOutputVolume()
                return .success
            }
            guard wasPlaying else { return .success }
            if let failure = await halt(as: .interrupted) { return failure }
            interruption = Interruption(wasPlaying: true, ducked: false)
            publish()
            return .success
        }
    }

    /// Ends an interruption: restores the volume, and resumes if `shouldResume` and audio was playing
    /// when it began; otherwise an interrupted player becomes paused.
    @discardableResult
    public func endInterruption(shouldResume: Bool) async -> PlaybackOutcome {
        await exclusively {
            guard let ended = interruption else { return .success }
            interruption = nil
            if ended.ducked {
                await applyOutputVolume()
                return .success
            }
            guard state == .interrupted else { return .success }
            if shouldResume, ended.wasPlaying {
                state = .paused
                return await playInTurn()
            }
            state = .paused
            publish()
            return .success
        }
    }
}
