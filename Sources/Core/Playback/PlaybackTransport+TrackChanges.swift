// MARK: - Track changes: loading the queue's current item, and stopping at the end

extension PlaybackTransport {
    /// Loads the queue's current item and, if `playing`, starts it. An item that fails to load is
    /// reported and skipped (the nextTrack rule), until one loads or every item has failed.
    /// Caller holds the turn.
    nonisolated(nonsending) func loadCurrent(startAt: Double? = nil, playing: Bool) async -> PlaybackOutcome {
        var failures = 0
        var startAt = startAt
        while let item = queue.currentItem {
            await playhead.cancelSeekHold()
            let start = startAt ?? item.startPosition ?? 0
            do throws(AudioError) {
                try await loads.load(item, at: start, rate: playhead.rate, play: playing)
                state = playing ? .playing : (state == .interrupted ? .interrupted : .paused)
                if playing { listenerTookOver() }
                playhead.anchor(at: start)
                publish()
                return .success
            } catch where error.kind == .device {
                state = .paused
                playhead.anchor(at: start)
                emit(.error(identifier: item.identifier, error))
                publish()
                return .failed(.deviceLost(error.message))
            } catch {
                emit(.error(identifier: item.identifier, error))
                failures += 1
                startAt = nil
                guard failures < queue.count, queue.advance(.nextTrack) != nil else {
                    await stopAtEnd()
                    return .failed(.unplayable("no item in the queue could be played: \(error.message)"))
                }
            }
        }
        await stopAtEnd()
        return .failed(.nothingLoaded)
    }

    /// Reports the end of the current item if it ever produced audio. Caller holds the turn.
    nonisolated(nonsending) func endCurrentTrack(_ reason: TrackEndReason, at: Double? = nil) async {
        guard let item = queue.currentItem, loads.isLoaded, loads.isStarted else { return }
        let ended: Double
        if let at { ended = at } else { ended = await playhead.currentPosition() }
        emit(.trackEnded(identifier: item.identifier, reason: reason, position: ended))
    }

    /// Played past the end (or nothing could play): nothing current, the engine released, the
    /// items kept so play starts over. Caller holds the turn.
    nonisolated(nonsending) func stopAtEnd() async {
        await playhead.cancelSeekHold()
        loads.resolveStartWaiters(.failed(.unplayable("playback stopped before the item started")))
        queue.movePastEnd()
        await releaseEngine()
        publish()
    }

    /// Stops the engine and forgets everything about the current load.
    nonisolated(nonsending) func releaseEngine() async {
        await loads.release()
        state = .stopped
        listenerTookOver()
        playhead.anchor(at: 0)
    }
}
