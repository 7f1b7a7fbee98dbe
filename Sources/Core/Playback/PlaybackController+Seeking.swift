// MARK: - Position, seeking and rate

/// A seek button being held (seekForward/seekBackward with beginSeeking, until endSeeking).
struct SeekHold {
    enum Kind {
        /// Playing at the elevated rate.
        case fastForward
        /// Jumping a step every interval (rewind, or fast-forward while paused).
        case stepping(Task<Void, Never>)
    }
    var direction: SeekDirection
    var kind: Kind
}

extension PlaybackController {
    /// Seeks within the current item (S6: changePlaybackPosition). With `identifier`, the request is
    /// refused unless it names the current item.
    @discardableResult
    public func seek(to seconds: Double, identifier: String? = nil) async -> PlaybackOutcome {
        await exclusively {
            if let identifier, let current = queue.currentItem, current.identifier != identifier {
                return .failed(.noSuchContent("\(identifier) is not the current item"))
            }
            return await seekInTurn(to: seconds)
        }
    }

    /// Jumps `seconds` forward (negative: back) within the current item, stopping at its ends
    /// (skipForward/skipBackward).
    @discardableResult
    public func skip(by seconds: Double) async -> PlaybackOutcome {
        await exclusively {
            if let failure = positionFailure() { return .failed(failure) }
            guard seconds.isFinite else { return .failed(.invalid("the interval is not a number")) }
            return await seekInTurn(to: clamped(await positionBeforeMoving() + seconds))
        }
    }

    /// Starts a held seek: forward plays at the elevated rate (or steps while paused), backward steps
    /// back every interval, until `endSeeking()`.
    @discardableResult
    public func beginSeeking(forward: Bool) async -> PlaybackOutcome {
        await exclusively {
            if let failure = positionFailure() { return .failed(failure) }
            await cancelSeekHold()
            let direction: SeekDirection = forward ? .forward : .backward
            if forward, state == .playing {
                await reanchor()
                do throws(AudioError) {
                    try await engine.setRate(configuration.fastForwardRate)
                } catch {
                    return .failed(PlaybackFailure(error))
                }
                seekHold = SeekHold(direction: direction, kind: .fastForward)
                publish()
                return .success
            }
            let outcome = await stepInTurn(direction)
            guard outcome == .success else { return outcome }
            let task = Task { await self.repeatSteps(direction) }
            seekHold = SeekHold(direction: direction, kind: .stepping(task))
            publish()
            return .success
        }
    }

    /// Ends a held seek; harmless when none is held.
    @discardableResult
    public func endSeeking() async -> PlaybackOutcome {
        await exclusively {
            await cancelSeekHold()
            publish()
            return .success
        }
    }

    /// Sets the listener's rate (S16); it applies now if playing and to every item after.
    @discardableResult
    public func setRate(_ newRate: Double) async -> PlaybackOutcome {
        await exclusively {
            guard let item = queue.currentItem else { return .failed(.nothingLoaded) }
            guard newRate.isFinite, newRate > 0 else { return .failed(.invalid("rate \(newRate) is not positive")) }
            guard !item.isLiveStream else { return .failed(.invalid("a live stream plays at its own rate")) }
            guard newRate != rate else { return .success }
            await reanchor()
            if case .fastForward = seekHold?.kind {
                // The held button wins until it is released; the new rate applies then.
            } else if currentToken != nil {
                // (A restored item not loaded yet takes the rate when it loads.)
                do throws(AudioError) {
                    try await engine.setRate(newRate)
                } catch {
                    return .failed(PlaybackFailure(error))
                }
            }
            rate = newRate
            publish()
            return .success
        }
    }

    // MARK: - In a turn

    /// Why position commands cannot act now, if they cannot.
    func positionFailure() -> PlaybackFailure? {
        guard let item = queue.currentItem, currentToken != nil || isRestoredUnloaded else { return .nothingLoaded }
        if item.isLiveStream { return .invalid("a live stream has no position to seek") }
        return nil
    }

    /// The position a seek, skip or step moves from, checking the duration it is bounded by first.
    ///
    /// A stream's first duration can be a guess the engine never corrects: over HTTP, GStreamer's Ogg
    /// demuxer keeps its first bitrate estimate (a fraction of a second, for an episode of minutes) when the
    /// whole file arrived before it read the last page. A duration the audio has played past by more than a
    /// second is such a guess; the item's length is unknown again rather than a bound on seeks and skips.
    func positionBeforeMoving() async -> Double {
        let position = await currentPosition()
        if let known = duration, position > known + 1 {
            duration = nil
            publish()
        }
        return position
    }

    func clamped(_ position: Double) -> Double {
        let start = max(0, position)
        return duration.map { min(start, $0) } ?? start
    }

    func seekInTurn(to seconds: Double) async -> PlaybackOutcome {
        if let failure = positionFailure() { return .failed(failure) }
        guard seconds.isFinite, seconds >= 0 else { return .failed(.invalid("position \(seconds) is negative")) }
        if let known = duration, seconds > known {
            _ = await positionBeforeMoving()
            if duration != nil { return .failed(.invalid("position \(seconds) is beyond the item's \(known) seconds")) }
        }
        // A restored item not loaded yet is loaded at the new place by the next play.
        if isRestoredUnloaded {
            anchor(at: seconds)
            publish()
            if let item = queue.currentItem { emit(.seeked(identifier: item.identifier, position: seconds)) }
            return .success
        }
        do throws(AudioError) {
            try await engine.seek(to: seconds)
        } catch {
            return .failed(PlaybackFailure(error))
        }
        // Playing, the audio resumes once the engine has prerolled at the new place; the engine says so
        // with a playing fact, which re-anchors to where the audio really is.
        if state == .playing { seekLanding = currentToken }
        anchor(at: seconds)
        publish()
        if let item = queue.currentItem { emit(.seeked(identifier: item.identifier, position: seconds)) }
        return .success
    }

    /// One step of a held seek.
    func stepInTurn(_ direction: SeekDirection) async -> PlaybackOutcome {
        let step = direction == .forward ? configuration.seekStep : -configuration.seekStep
        return await seekInTurn(to: clamped(await positionBeforeMoving() + step))
    }

    /// The timer of a stepping hold: a step every interval until the hold is cancelled.
    func repeatSteps(_ direction: SeekDirection) async {
        while !Task.isCancelled {
            do {
                try await clock.sleep(for: configuration.seekStepInterval)
            } catch {
                return
            }
            await exclusively {
                guard !Task.isCancelled, seekHold?.direction == direction else { return }
                _ = await stepInTurn(direction)
            }
        }
    }

    /// Releases a held seek: stops the timer, or drops the elevated rate. Caller holds the turn.
    func cancelSeekHold() async {
        guard let hold = seekHold else { return }
        switch hold.kind {
        case let .stepping(task):
            seekHold = nil
            task.cancel()
        case .fastForward:
            await reanchor()  // still at the elevated rate up to now
            seekHold = nil
            try? await engine.setRate(rate)
            anchor(at: anchorElapsed)
            // Whoever follows the position at the listener's rate is that far off now.
            if let item = queue.currentItem { emit(.seeked(identifier: item.identifier, position: anchorElapsed)) }
        }
    }
}
