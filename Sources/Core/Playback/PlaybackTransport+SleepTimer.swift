extension PlaybackTransport {
    /// One step of the countdown: the fade as the end comes, and at a timed end the pause. Returns how long
    /// to wait before the next step; nil once the timer is over. Caller holds the turn.
    nonisolated(nonsending) func sleepTimerStep() async -> Double? {
        guard let timer = playhead.sleepTimer else { return nil }
        let remaining: Double
        if let endsAt = timer.endsAt {
            remaining = endsAt - clock.now()
            if remaining <= 0 {
                // Forgotten before the pause, so the paused state goes out without it; the fade is given back
                // only once the music stands. As the listener's pause: an interruption or announcement that
                // held the music no longer resumes it.
                // Not cancelled: this is the countdown's own task, and the pause must not see it cancelled.
                forgetSleepTimer(cancellingCountdown: false)
                _ = await pause()
                await level.setFade(1)
                publish()
                return nil
            }
        } else if playhead.effectiveRate > 0, let duration = loads.duration {
            remaining = max(0, duration - playhead.computedPosition()) / playhead.effectiveRate
        } else {
            // Not moving toward the item's end (paused, or its length unknown): nothing to fade yet.
            await level.setFade(1)
            return 1
        }
        await level.setFade(timer.fadeOut > 0 ? min(1, remaining / timer.fadeOut) : 1)
        if remaining > timer.fadeOut {
            // A seek or a new rate moves an item's end: look again within a second.
            return timer.endsWithItem ? min(remaining - timer.fadeOut, 1) : remaining - timer.fadeOut
        }
        return timer.endsWithItem ? SleepTimer.fadeStep : min(SleepTimer.fadeStep, remaining)
    }

    /// The item playing ended with the timer set for its end: the queue moves on, paused at the next
    /// item's start (or stops after the last). `playing` says whether the engine already plays the next item
    /// (a gapless switch, heard silent: the fade is at 0). Caller holds the turn.
    nonisolated(nonsending) func sleepTimerEndsWithItem(nextAlreadyPlaying: Bool) async {
        forgetSleepTimer()
        if nextAlreadyPlaying {
            _ = await halt(as: .paused)
            _ = await playhead.seek(to: 0)
        } else if queue.advance(.naturalEnd) != nil {
            _ = await loadCurrent(playing: false)
        } else {
            await stopAtEnd()
        }
        await level.setFade(1)
        publish()
    }

    /// Forgets the sleep timer and gives back what its fade took. Caller holds the turn.
    nonisolated(nonsending) func disarmSleepTimer() async {
        guard playhead.sleepTimer != nil else { return }
        forgetSleepTimer()
        await level.setFade(1)
    }

    /// Forgets the sleep timer, its fade left as it is (the caller gives it back). Caller holds the turn.
    func forgetSleepTimer(cancellingCountdown: Bool = true) {
        if cancellingCountdown { playhead.sleepTimerTask?.cancel() }
        playhead.sleepTimerTask = nil
        playhead.sleepTimer = nil
    }
}
