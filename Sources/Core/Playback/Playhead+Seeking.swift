// MARK: - Seeking, the seek buttons and the rate

/// A seek button being held (seekForward/seekBackward with beginSeeking, until endSeeking), and a seek on
/// its way to the new place.
struct SeekState {
    var hold: SeekHold?
    /// The load whose last seek, made while playing, has not yet produced audio at the new place. Until it
    /// does, now playing holds the target still (rate 0): over a slow network that can take seconds, and a
    /// position that runs on meanwhile would run ahead of the audio and jump back when it starts.
    var landing: PlaybackToken?
}

/// A seek button being held.
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

extension Playhead {
    /// Seeks within the current item; with `identifier`, only if it names the current item.
    nonisolated(nonsending) func seek(to seconds: Double, identifier: String?) async -> PlaybackOutcome {
        if let identifier, let current = queue.currentItem, current.identifier != identifier {
            return .failed(.noSuchContent("\(identifier) is not the current item"))
        }
        return await seek(to: seconds)
    }

    /// Jumps `seconds` forward (negative: back), stopping at the item's ends.
    nonisolated(nonsending) func skip(by seconds: Double) async -> PlaybackOutcome {
        if let failure = positionFailure() { return .failed(failure) }
        guard seconds.isFinite else { return .failed(.invalid("the interval is not a number")) }
        return await seek(to: clamped(await positionBeforeMoving() + seconds))
    }

    /// Starts a held seek: forward plays at the elevated rate (or steps while paused), backward steps back
    /// every interval; `startStepping` starts the timer that steps until the hold is cancelled.
    nonisolated(nonsending) func beginSeeking(
        forward: Bool, startStepping: (SeekDirection) -> Task<Void, Never>
    ) async -> PlaybackOutcome {
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
            seeking.hold = SeekHold(direction: direction, kind: .fastForward)
            publish()
            return .success
        }
        let outcome = await step(direction)
        guard outcome == .success else { return outcome }
        seeking.hold = SeekHold(direction: direction, kind: .stepping(startStepping(direction)))
        publish()
        return .success
    }

    /// Ends a held seek; harmless when none is held.
    nonisolated(nonsending) func endSeeking() async -> PlaybackOutcome {
        await cancelSeekHold()
        publish()
        return .success
    }

    /// Sets the listener's rate (S16); it applies now if playing and to every item after.
    nonisolated(nonsending) func setRate(_ newRate: Double) async -> PlaybackOutcome {
        guard let item = queue.currentItem else { return .failed(.nothingLoaded) }
        guard newRate.isFinite, newRate > 0 else { return .failed(.invalid("rate \(newRate) is not positive")) }
        guard !item.isLiveStream else { return .failed(.invalid("a live stream plays at its own rate")) }
        guard newRate != rate else { return .success }
        await reanchor()
        if case .fastForward = seeking.hold?.kind {
            // The held button wins until it is released; the new rate applies then.
        } else if loads.isLoaded {
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

    // MARK: - In a turn

    /// Why position commands cannot act now, if they cannot.
    func positionFailure() -> PlaybackFailure? {
        guard let item = queue.currentItem, loads.isLoaded || isRestoredUnloaded else { return .nothingLoaded }
        if item.isLiveStream { return .invalid("a live stream has no position to seek") }
        return nil
    }

    /// The position a seek, skip or step moves from, checking the duration it is bounded by first.
    ///
    /// A stream's first duration can be a guess the engine never corrects: over HTTP, GStreamer's Ogg
    /// demuxer keeps its first bitrate estimate (a fraction of a second, for an episode of minutes) when the
    /// whole file arrived before it read the last page. A duration the audio has played past by more than a
    /// second is such a guess; the item's length is unknown again rather than a bound on seeks and skips.
    nonisolated(nonsending) func positionBeforeMoving() async -> Double {
        let position = await currentPosition()
        if let known = loads.duration, position > known + 1 {
            loads.duration = nil
            publish()
        }
        return position
    }

    func clamped(_ position: Double) -> Double {
        let start = max(0, position)
        return loads.duration.map { min(start, $0) } ?? start
    }

    /// Seeks the current item to `seconds` (S6).
    nonisolated(nonsending) func seek(to seconds: Double) async -> PlaybackOutcome {
        if let failure = positionFailure() { return .failed(failure) }
        guard seconds.isFinite, seconds >= 0 else { return .failed(.invalid("position \(seconds) is negative")) }
        if let known = loads.duration, seconds > known {
            _ = await positionBeforeMoving()
            if loads.duration != nil { return .failed(.invalid("position \(seconds) is beyond the item's \(known) seconds")) }
        }
        // A restored item not loaded yet is loaded at the new place by the next play.
        if isRestoredUnloaded {
            anchor(at: seconds)
            publish()
            if let item = queue.currentItem { streams.emit(.seeked(identifier: item.identifier, position: seconds)) }
            return .success
        }
        do throws(AudioError) {
            try await engine.seek(to: seconds)
        } catch {
            return .failed(PlaybackFailure(error))
        }
        // Playing, the audio resumes once the engine has prerolled at the new place; the engine says so
        // with a playing fact, which re-anchors to where the audio really is.
        if state == .playing { seeking.landing = loads.current }
        anchor(at: seconds)
        publish()
        if let item = queue.currentItem { streams.emit(.seeked(identifier: item.identifier, position: seconds)) }
        return .success
    }

    /// One step of a held seek.
    nonisolated(nonsending) func step(_ direction: SeekDirection) async -> PlaybackOutcome {
        let step = direction == .forward ? configuration.seekStep : -configuration.seekStep
        return await seek(to: clamped(await positionBeforeMoving() + step))
    }

    /// Releases a held seek: stops the timer, or drops the elevated rate. Caller holds the turn.
    nonisolated(nonsending) func cancelSeekHold() async {
        guard let hold = seeking.hold else { return }
        switch hold.kind {
        case let .stepping(task):
            seeking.hold = nil
            task.cancel()
        case .fastForward:
            await reanchor()  // still at the elevated rate up to now
            seeking.hold = nil
            try? await engine.setRate(rate)
            anchor(at: anchored.elapsed)
            // Whoever follows the position at the listener's rate is that far off now.
            if let item = queue.currentItem { streams.emit(.seeked(identifier: item.identifier, position: anchored.elapsed)) }
        }
    }
}
