// MARK: - Interruptions (the `interrupt` command: a phone call, a navigation prompt)

/// An interruption in progress.
struct Interruption {
    /// Whether audio was playing when it began.
    var wasPlaying: Bool
    /// Whether it lowered the volume instead of pausing.
    var ducked: Bool
}

extension PlaybackTransport {
    /// Begins an interruption: pauses, or with `duck` lowers the volume and keeps playing.
    nonisolated(nonsending) func beginInterruption(duck: Bool) async -> PlaybackOutcome {
        guard queue.currentItem != nil, interruption == nil else { return .success }
        let wasPlaying = state == .playing
        if duck {
            interruption = Interruption(wasPlaying: wasPlaying, ducked: true)
            await level.setDucked(true, for: .interruption)
            return .success
        }
        guard wasPlaying else { return .success }
        if let failure = await halt(as: .interrupted) { return failure }
        interruption = Interruption(wasPlaying: true, ducked: false)
        publish()
        return .success
    }

    /// Ends an interruption: restores the volume, and resumes if `shouldResume` and audio was playing.
    nonisolated(nonsending) func endInterruption(shouldResume: Bool) async -> PlaybackOutcome {
        guard let ended = interruption else { return .success }
        interruption = nil
        if ended.ducked {
            await level.setDucked(false, for: .interruption)
            return .success
        }
        guard state == .interrupted else { return .success }
        if shouldResume, ended.wasPlaying {
            state = .paused
            return await play()
        }
        state = .paused
        publish()
        return .success
    }

    /// The listener played, paused or changed the item: no interruption or announcement that paused the
    /// music resumes it by itself any more. A ducking interruption goes on until its end, which brings
    /// the level back.
    func listenerTookOver() {
        if interruption?.ducked != true { interruption = nil }
        isHeldForAnnouncement = false
    }
}
