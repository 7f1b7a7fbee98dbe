// MARK: - Transport: play, pause, stop, next, previous

extension PlaybackController {
    /// Starts or resumes playback (S5: refused while already playing). After the queue played past
    /// its end, starts over from the first item.
    @discardableResult
    public func play() async -> PlaybackOutcome {
        await exclusively { await playInTurn() }
    }

    /// Pauses the engine and keeps the queue (S5: refused while already paused).
    @discardableResult
    public func pause() async -> PlaybackOutcome {
        await exclusively { await pauseInTurn() }
    }

    /// Plays when paused and pauses when playing (S9: the headphone or steering-wheel button).
    @discardableResult
    public func togglePlayPause() async -> PlaybackOutcome {
        await exclusively {
            state == .playing ? await pauseInTurn() : await playInTurn()
        }
    }

    /// Stops and releases the queue (S8: unlike pause, nothing stays loaded). Always succeeds.
    @discardableResult
    public func stop() async -> PlaybackOutcome {
        await exclusively {
            await cancelSeekHold()
            await endCurrentTrack(.stopped)
            resolveStartWaiters(.failed(.invalid("stopped before the item started")))
            await releaseEngine()
            queue.removeAll()
            publish()
            return .success
        }
    }

    /// Moves to the next item; repeat one moves on too, repeat all wraps, and with repeat off the last
    /// item moves past the end (stopped). Keeps playing or paused as it was.
    @discardableResult
    public func nextTrack() async -> PlaybackOutcome {
        await exclusively {
            guard queue.currentItem != nil else { return .failed(.nothingLoaded) }
            let playing = state == .playing
            await endCurrentTrack(.skipped)
            guard queue.advance(.nextTrack) != nil else {
                await stopAtEnd()
                return .success
            }
            return await loadCurrent(playing: playing)
        }
    }

    /// Restarts the current item when more than the threshold (3 s) into it, else moves to the item
    /// before; at the first item with repeat off it restarts. Live streams always move.
    @discardableResult
    public func previousTrack() async -> PlaybackOutcome {
        await exclusively {
            guard let item = queue.currentItem else { return .failed(.nothingLoaded) }
            let position = item.isLiveStream ? 0 : await currentPosition()
            var moved = queue
            let move = moved.previousTrack(
                position: position, restartThreshold: configuration.previousTrackRestartThreshold)
            switch move {
            case .restartCurrent?:
                if item.isLiveStream { return .success }
                return await seekInTurn(to: 0)
            case .moved?:
                let playing = state == .playing
                await endCurrentTrack(.skipped, at: position)
                queue = moved
                return await loadCurrent(playing: playing)
            case nil:
                return .failed(.nothingLoaded)
            }
        }
    }

    // MARK: - In a turn

    func playInTurn() async -> PlaybackOutcome {
        guard !queue.isEmpty else { return .failed(.nothingLoaded) }
        guard queue.currentItem != nil else {
            queue.moveTo(index: 0)
            return await loadCurrent(playing: true)
        }
        guard state != .playing else { return .failed(.alreadyPlaying) }
        if isRestoredUnloaded {
            let item = queue.currentItem
            return await loadCurrent(startAt: item?.isLiveStream == true ? nil : anchorElapsed, playing: true)
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
        interruption = nil
        if announcementHold == .pause { announcementHold = nil }
        anchor(at: anchorElapsed)
        publish()
        return .success
    }

    /// The current item failed when asked to play (its error fact may not have arrived yet): report it
    /// and play the next one, as the fact would have.
    func skipUnplayable(_ error: AudioError) async -> PlaybackOutcome {
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
    func halt(as newState: PlaybackState) async -> PlaybackOutcome? {
        await cancelSeekHold()
        let sample: PositionSample?
        do throws(AudioError) {
            // A seek still landing stops where it aims: reading the engine would wait for it to land.
            if isSeekLanding {
                try await engine.pause()
                sample = PositionSample(seconds: anchorElapsed, sampledAt: clock.now())
            } else {
                sample = try await engine.pauseAndSample()
            }
        } catch {
            return .failed(PlaybackFailure(error))
        }
        if currentToken != nil, let sample {
            anchorElapsed = max(0, sample.seconds)
            anchorTime = sample.sampledAt ?? clock.now()
        } else {
            await reanchor()
        }
        state = newState
        anchor(at: anchorElapsed)
        // Held before its first sound, the item will not start on its own: whoever waits for it is told.
        if !currentStarted { resolveStartWaiters(.failed(.invalid("\(newState.rawValue) before the item started"))) }
        return nil
    }

    func pauseInTurn() async -> PlaybackOutcome {
        guard queue.currentItem != nil else { return .failed(.nothingLoaded) }
        switch state {
        case .playing:
            if let failure = await halt(as: .paused) { return failure }
            publish()
            return .success
        case .interrupted:
            // Paused by the listener during an interruption: it must not resume when that ends.
            interruption = nil
            if announcementHold == .pause { announcementHold = nil }
            state = .paused
            publish()
            return .success
        case .paused:
            return .failed(.alreadyPaused)
        case .stopped:
            return .failed(.nothingLoaded)
        }
    }
}
