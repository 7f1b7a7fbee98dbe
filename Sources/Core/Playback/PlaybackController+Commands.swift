// MARK: - The transport's commands, each in its own turn

extension PlaybackController {
    /// Starts or resumes playback (S5: refused while already playing). After the queue played past
    /// its end, starts over from the first item.
    @discardableResult
    public func play() async -> PlaybackOutcome {
        await exclusively { await transport.play() }
    }

    /// Pauses the engine and keeps the queue (S5: refused while already paused).
    @discardableResult
    public func pause() async -> PlaybackOutcome {
        await exclusively { await transport.pause() }
    }

    /// Plays when paused and pauses when playing (S9: the headphone or steering-wheel button).
    @discardableResult
    public func togglePlayPause() async -> PlaybackOutcome {
        await exclusively { transport.state == .playing ? await transport.pause() : await transport.play() }
    }

    /// Stops and releases the queue (S8: unlike pause, nothing stays loaded). Always succeeds.
    @discardableResult
    public func stop() async -> PlaybackOutcome {
        await exclusively { await transport.stop() }
    }

    /// Moves to the next item; repeat one moves on too, repeat all wraps, and with repeat off the last
    /// item moves past the end (stopped). Keeps playing or paused as it was.
    @discardableResult
    public func nextTrack() async -> PlaybackOutcome {
        await exclusively { await transport.nextTrack() }
    }

    /// Restarts the current item when more than the threshold (3 s) into it, else moves to the item
    /// before; at the first item with repeat off it restarts. Live streams always move.
    @discardableResult
    public func previousTrack() async -> PlaybackOutcome {
        await exclusively { await transport.previousTrack() }
    }

    // MARK: - Position

    /// Seeks within the current item (S6: changePlaybackPosition). With `identifier`, the request is
    /// refused unless it names the current item.
    @discardableResult
    public func seek(to seconds: Double, identifier: String? = nil) async -> PlaybackOutcome {
        await exclusively { await playhead.seek(to: seconds, identifier: identifier) }
    }

    /// Jumps `seconds` forward (negative: back) within the current item, stopping at its ends
    /// (skipForward/skipBackward).
    @discardableResult
    public func skip(by seconds: Double) async -> PlaybackOutcome {
        await exclusively { await playhead.skip(by: seconds) }
    }

    /// Starts a held seek: forward plays at the elevated rate (or steps while paused), backward steps
    /// back every interval, until `endSeeking()`.
    @discardableResult
    public func beginSeeking(forward: Bool) async -> PlaybackOutcome {
        await exclusively {
            await playhead.beginSeeking(forward: forward) { direction in Task { await self.repeatSteps(direction) } }
        }
    }

    /// Ends a held seek; harmless when none is held.
    @discardableResult
    public func endSeeking() async -> PlaybackOutcome {
        await exclusively { await playhead.endSeeking() }
    }

    /// Sets the listener's rate (S16); it applies now if playing and to every item after.
    @discardableResult
    public func setRate(_ newRate: Double) async -> PlaybackOutcome {
        await exclusively { await playhead.setRate(newRate) }
    }

    /// The timer of a stepping hold: a step every interval, each in its own turn, until the hold ends.
    func repeatSteps(_ direction: SeekDirection) async {
        while !Task.isCancelled {
            do {
                try await playhead.clock.sleep(for: configuration.seekStepInterval)
            } catch {
                return
            }
            await exclusively {
                guard !Task.isCancelled, playhead.seeking.hold?.direction == direction else { return }
                _ = await playhead.step(direction)
            }
        }
    }

    // MARK: - Interruptions and announcements

    /// Begins an interruption: pauses (state `interrupted`), or with `duck` lowers the volume and keeps
    /// playing. With nothing loaded there is nothing to interrupt, and it succeeds.
    @discardableResult
    public func beginInterruption(duck: Bool = false) async -> PlaybackOutcome {
        await exclusively { await transport.beginInterruption(duck: duck) }
    }

    /// Ends an interruption: restores the volume, and resumes if `shouldResume` and audio was playing
    /// when it began; otherwise an interrupted player becomes paused.
    @discardableResult
    public func endInterruption(shouldResume: Bool) async -> PlaybackOutcome {
        await exclusively { await transport.endInterruption(shouldResume: shouldResume) }
    }

    /// Holds the music for an announcement. A duck lowers the output at once; a pause halts playing music
    /// as `interrupted` (music that is not playing is left as it is, and stays so). Once paused for one
    /// announcement, the music stays paused for the ones that follow.
    public func holdForAnnouncement(_ hold: MusicHold) async {
        await exclusively { await transport.holdForAnnouncement(hold) }
    }

    /// Gives the music back after the last announcement: the listener's level at once, or playing again
    /// where it paused, unless the listener has since paused, played or stopped it themselves.
    public func releaseAfterAnnouncements() async {
        await exclusively { await transport.releaseAfterAnnouncements() }
    }

    /// The listener's level, which an announcement without a `volume` plays at.
    public var listenerVolume: Double {
        get async { await level.volume }
    }
}
