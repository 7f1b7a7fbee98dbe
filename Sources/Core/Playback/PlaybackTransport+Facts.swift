// MARK: - What the engine's facts about the loads mean

extension PlaybackTransport {
    /// The current load really plays (S24), or the engine switched gaplessly to the preloaded item.
    nonisolated(nonsending) func streamStarted(_ token: PlaybackToken) async {
        if token == loads.current {
            guard let item = loads.markStarted(token) else { return }
            emit(.trackStarted(identifier: item.identifier))
            loads.resolveStartWaiters(.success)
            return
        }
        guard loads.isPreloaded(token) else { return }
        await endCurrentTrack(.finished, at: loads.duration)
        guard let item = loads.moveToPreloaded(token) else { return }
        await playhead.cancelSeekHold()
        loads.adoptPreloaded(token, playing: item)
        playhead.anchor(at: 0)
        emit(.trackStarted(identifier: item.identifier))
        await loads.updatePreload()
        publish()
    }

    /// The current item played to its end with nothing preloaded (S15): advance by the modes, or stop.
    nonisolated(nonsending) func endOfStream() async {
        let playing = state == .playing
        await endCurrentTrack(.finished, at: loads.duration)
        guard queue.advance(.naturalEnd) != nil else {
            await stopAtEnd()
            return
        }
        _ = await loadCurrent(playing: playing)
    }

    /// An error for the current item skips it; for the preloaded item it drops the preload (the item
    /// is reported and skipped when reached); a lost output pauses and is reported.
    nonisolated(nonsending) func failed(_ token: PlaybackToken, _ error: AudioError) async {
        if await loads.preloadFailed(token) { return }
        guard token == loads.current, let item = queue.currentItem else { return }
        emit(.error(identifier: item.identifier, error))
        if error.kind == .device {
            loads.resolveStartWaiters(.failed(.deviceLost(error.message)))
            await playhead.cancelSeekHold()
            await playhead.reanchor()
            if state == .playing { state = .paused }
            playhead.anchor(at: playhead.anchored.elapsed)
            publish()
            return
        }
        loads.resolveStartWaiters(.failed(.unplayable("\(item.identifier): \(error.message)")))
        let playing = state == .playing
        await endCurrentTrack(.failed)
        loads.consecutiveFailures += 1
        // Every item failing in a row under repeat all would loop forever: stop instead.
        guard loads.consecutiveFailures < queue.count, queue.advance(.nextTrack) != nil else {
            loads.consecutiveFailures = 0
            await stopAtEnd()
            return
        }
        _ = await loadCurrent(playing: playing)
    }
}
