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
