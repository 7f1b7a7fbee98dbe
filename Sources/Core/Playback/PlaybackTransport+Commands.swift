// MARK: - Play, pause, stop, next, previous

extension PlaybackTransport {
    /// Starts or resumes playback (S5); after the end of the queue, from its first item.
    nonisolated(nonsending) func play() async -> PlaybackOutcome {
        guard !queue.isEmpty else { return .failed(.nothingLoaded) }
        guard queue.currentItem != nil else {
            queue.moveTo(index: 0)
            return await loadCurrent(playing: true)
        }
        guard state != .playing else { return .failed(.alreadyPlaying) }
        if playhead.isRestoredUnloaded {
            let item = queue.currentItem
            return await loadCurrent(startAt: item?.isLiveStream == true ? nil : playhead.anchored.elapsed, playing: true)
        }
        // No position query first: the paused anchor is exact (taken by pause, seek or load), and the
        // playing fact re-anchors once the pipeline really moves; a query would cost a thread hop.
        do throws(AudioError) {
            try await engine.play()
        } catch where error.kind == .item {
            return await skipUnplayable(error)
        } catch {
            return .failed(PlaybackFailure(error))
        }
        state = .playing
        listenerTookOver()
        playhead.anchor(at: playhead.anchored.elapsed)
        publish()
        return .success
    }

    /// Pauses (S5); during an interruption, the listener's pause is kept when it ends.
    nonisolated(nonsending) func pause() async -> PlaybackOutcome {
        guard queue.currentItem != nil else { return .failed(.nothingLoaded) }
        switch state {
        case .playing:
            if let failure = await halt(as: .paused) { return failure }
            publish()
            return .success
        case .interrupted:
            // Paused by the listener during an interruption: it must not resume when that ends.
            listenerTookOver()
            state = .paused
            publish()
            return .success
        case .paused:
            return .failed(.alreadyPaused)
        case .stopped:
            return .failed(.nothingLoaded)
        }
    }

    /// Stops and releases the queue (S8).
    nonisolated(nonsending) func stop() async -> PlaybackOutcome {
        await playhead.cancelSeekHold()
        await endCurrentTrack(.stopped)
        loads.resolveStartWaiters(.failed(.invalid("stopped before the item started")))
        await releaseEngine()
        queue.removeAll()
        publish()
        return .success
    }

    /// Moves to the next item by the modes, playing or paused as it was.
    nonisolated(nonsending) func nextTrack() async -> PlaybackOutcome {
        guard queue.currentItem != nil else { return .failed(.nothingLoaded) }
        let playing = state == .playing
        await endCurrentTrack(.skipped)
        guard queue.advance(.nextTrack) != nil else {
            await stopAtEnd()
            return .success
        }
        return await loadCurrent(playing: playing)
    }

    /// Restarts the current item when far enough into it, else moves to the item before.
    nonisolated(nonsending) func previousTrack() async -> PlaybackOutcome {
        guard let item = queue.currentItem else { return .failed(.nothingLoaded) }
        let elapsed = item.isLiveStream ? 0 : await playhead.currentPosition()
        let move = queue.previousTrackMove(
            position: elapsed, restartThreshold: configuration.previousTrackRestartThreshold)
        switch move {
        case .restartCurrent?:
            if item.isLiveStream { return .success }
            return await playhead.seek(to: 0)
        case .moved?:
            let playing = state == .playing
            await endCurrentTrack(.skipped, at: elapsed)
            queue.moveBack()
            return await loadCurrent(playing: playing)
        case nil:
            return .failed(.nothingLoaded)
        }
    }

    /// The current item failed when asked to play (its error fact may not have arrived yet): report it
    /// and play the next one, as the fact would have.
    nonisolated(nonsending) func skipUnplayable(_ error: AudioError) async -> PlaybackOutcome {
        guard let item = queue.currentItem else { return .failed(PlaybackFailure(error)) }
        emit(.error(identifier: item.identifier, error))
        await endCurrentTrack(.failed)
        guard queue.advance(.nextTrack) != nil else {
            await stopAtEnd()
            return .failed(.unplayable("\(item.identifier): \(error.message)"))
        }
        return await loadCurrent(playing: true)
    }

    /// Pauses the engine and freezes the position as `newState` (paused, or interrupted); nil on success.
    nonisolated(nonsending) func halt(as newState: PlaybackState) async -> PlaybackOutcome? {
        await playhead.cancelSeekHold()
        let sample: PositionSample?
        do throws(AudioError) {
            // A seek still landing stops where it aims: reading the engine would wait for it to land.
            if playhead.isSeekLanding {
                try await engine.pause()
                sample = PositionSample(seconds: playhead.anchored.elapsed, sampledAt: clock.now())
            } else {
                sample = try await engine.pauseAndSample()
            }
        } catch {
            return .failed(PlaybackFailure(error))
        }
        if loads.isLoaded, let sample {
            playhead.anchor(to: sample)
        } else {
            await playhead.reanchor()
        }
        state = newState
        playhead.anchor(at: playhead.anchored.elapsed)
        // Held before its first sound, the item will not start on its own: whoever waits for it is told.
        if !loads.isStarted { loads.resolveStartWaiters(.failed(.invalid("\(newState.rawValue) before the item started"))) }
        return nil
    }
}
