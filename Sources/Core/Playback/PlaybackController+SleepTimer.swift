// MARK: - The sleep timer (a MediaNode addition)

/// `setSleepTimer`'s request.
public enum SleepTimerRequest: Sendable, Equatable {
    /// Pauses `seconds` from now, fading out over the last `fadeOut` seconds.
    case after(seconds: Double, fadeOut: Double)
    /// Pauses when the item playing ends (at the next item's start), fading out over its last `fadeOut` seconds.
    case endOfItem(fadeOut: Double)
    case cancel

    public static let defaultFadeOut = 10.0
}

/// An armed sleep timer, as now playing shows it (`sleepTimer`).
public struct SleepTimer: Sendable, Equatable {
    /// When the music pauses, in seconds since the epoch; nil: when the item playing ends.
    public var endsAt: Double?
    /// Seconds over which the music fades out before it pauses.
    public var fadeOut: Double

    public init(endsAt: Double?, fadeOut: Double) {
        self.endsAt = endsAt
        self.fadeOut = fadeOut
    }

    public var endsWithItem: Bool { endsAt == nil }

    /// How often the output level moves during a fade: a hundred steps over ten seconds, none heard as a step.
    static let fadeStep = 0.1
}

extension PlaybackController {
    /// Arms the sleep timer (replacing one armed before, its fade undone at once) or cancels it. It needs
    /// something loaded, and an end for `endOfItem`: a live stream has none. The countdown runs in turns of
    /// the lane, so a command never sees half a step of it.
    public func setSleepTimer(_ request: SleepTimerRequest) async -> PlaybackOutcome {
        await exclusively {
            let timer: SleepTimer
            switch request {
            case .cancel:
                await transport.disarmSleepTimer()
                playhead.publish()
                return .success
            case let .after(seconds, fadeOut):
                guard queue.currentItem != nil else { return .failed(.nothingLoaded) }
                timer = SleepTimer(endsAt: playhead.clock.now() + seconds, fadeOut: fadeOut)
            case let .endOfItem(fadeOut):
                guard let item = queue.currentItem else { return .failed(.nothingLoaded) }
                guard !item.isLiveStream else { return .failed(.invalid("a live stream has no end: give minutes instead")) }
                timer = SleepTimer(endsAt: nil, fadeOut: fadeOut)
            }
            await transport.disarmSleepTimer()
            playhead.sleepTimer = timer
            playhead.sleepTimerTask = Task { await self.runSleepTimer() }
            playhead.publish()
            return .success
        }
    }

    /// The countdown: a step in a turn of its own, then a sleep until the next one, until it is over.
    func runSleepTimer() async {
        while true {
            let wait = await exclusively { Task.isCancelled ? nil : await transport.sleepTimerStep() }
            guard let wait else { return }
            do {
                try await playhead.clock.sleep(for: wait)
            } catch {
                return
            }
        }
    }
}

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
