// MARK: - Interruptions (the `interrupt` command: a phone call, a navigation prompt)

/// An interruption in progress.
struct Interruption {
    /// Whether audio was playing when it began.
    var wasPlaying: Bool
    /// Whether it lowered the volume instead of pausing.
    var ducked: Bool
    /// Who began it, and so who ends it.
    var cause = InterruptionCause.command
}

/// Who holds the music: the `interrupt` command, the sound server's policy, or a lost output.
enum InterruptionCause {
    case command
    /// A cork request of the sound server; its uncork ends it.
    case audioFocus
    /// The output is gone; its return ends it.
    case outputLost
}

extension PlaybackTransport {
    /// Begins an interruption: pauses, or with `duck` lowers the volume and keeps playing.
    public nonisolated(nonsending) func beginInterruption(duck: Bool) async -> PlaybackOutcome {
        guard queue.currentItem != nil, interruption == nil else { return .success }
        let wasPlaying = state == .playing
        if duck {
            interruption = Interruption(wasPlaying: wasPlaying, ducked: true)
            await level.setDucked(true, for: .interruption)
            return .success
        }
        guard wasPlaying else { return .success }
        if let failure = await halt(as: .interrupted) { return failure }
        interruption = Interruption(wasPlaying: true, ducked: false)
        publish()
        return .success
    }

    /// Ends an interruption: restores the volume, and resumes if `shouldResume` and audio was playing.
    public nonisolated(nonsending) func endInterruption(shouldResume: Bool) async -> PlaybackOutcome {
        // The sound server's hold is the server's to end (or the listener's, by pause or play).
        guard let ended = interruption, ended.cause == .command else { return .success }
        interruption = nil
        if ended.ducked {
            await level.setDucked(false, for: .interruption)
            return .success
        }
        guard state == .interrupted else { return .success }
        if shouldResume, ended.wasPlaying {
            state = .paused
            return await play()
        }
        state = .paused
        publish()
        return .success
    }

    /// The listener played, paused or changed the item: no interruption or announcement that paused the
    /// music resumes it by itself any more. A ducking interruption goes on until its end, which brings
    /// the level back.
    func listenerTookOver() {
        if interruption?.ducked != true { interruption = nil }
        isHeldForAnnouncement = false
    }
}

// MARK: - The sound server's hold and a lost output (the engine's facts)

extension PlaybackTransport {
    /// A cork request of the sound server holds playing music as `interrupted`, the position standing; the
    /// uncork plays it on from the same place, unless the listener paused, stopped or chose something else
    /// meanwhile (then that stands).
    nonisolated(nonsending) func focusChanged(hasFocus: Bool) async {
        emit(.output(hasFocus ? .focusRegained : .focusLost))
        if hasFocus {
            await resume(heldBy: .audioFocus)
        } else {
            await holdForCork()
        }
    }

    /// The output is gone: playing music is held as `interrupted` where it was heard, and plays on from
    /// there once the output is back; an item not yet heard that a command waits on is refused instead.
    ///
    /// An output that is gone has no position to read (a sound server's sink, asked after its server died,
    /// reads seconds behind, often where it was last started or seeked): where the listener last heard the
    /// music is the anchored estimate (anchored when the audio was heard), and the engine is told to hold the
    /// item there, whether it was playing, paused or held for a call.
    nonisolated(nonsending) func outputLost(_ message: String) async {
        emit(.output(.lost(message)))
        // Held for a call when the server went: a restarted server has no call to wait for, so its return
        // ends the hold.
        if state == .interrupted, interruption?.cause == .audioFocus { interruption?.cause = .outputLost }
        guard state == .playing, let item = queue.currentItem else {
            if loads.isLoaded, let item = queue.currentItem, !item.isLiveStream {
                try? await engine.seek(to: playhead.computedPosition())
            }
            return
        }
        await playhead.cancelSeekHold()
        let heard = playhead.computedPosition()
        if !item.isLiveStream { try? await engine.seek(to: heard) }
        let wasDucked = interruption?.ducked == true
        // A command still waiting for the item's first sound is answered deviceNotFound: that answer stands,
        // so the item waits paused for the listener's play rather than starting by itself on the return.
        let refused = loads.isAwaitedByCommand
        state = refused ? .paused : .interrupted
        playhead.anchor(at: heard)
        interruption = refused ? nil : Interruption(wasPlaying: true, ducked: false, cause: .outputLost)
        if wasDucked { await level.setDucked(false, for: .interruption) }
        if !loads.isStarted { loads.resolveStartWaiters(.failed(.deviceLost(message))) }
        publish()
    }

    /// The output answers again.
    nonisolated(nonsending) func outputRestored() async {
        emit(.output(.restored))
        await resume(heldBy: .outputLost)
    }

    /// The pipeline stands where the server stopped it, which is what was heard: the pause reads it there.
    private nonisolated(nonsending) func holdForCork() async {
        guard state == .playing, queue.currentItem != nil else { return }
        // A command's duck gives way: the music is held now, and comes back at the listener's level.
        let wasDucked = interruption?.ducked == true
        guard await halt(as: .interrupted) == nil else { return }
        interruption = Interruption(wasPlaying: true, ducked: false, cause: .audioFocus)
        if wasDucked { await level.setDucked(false, for: .interruption) }
        publish()
    }

    private nonisolated(nonsending) func resume(heldBy cause: InterruptionCause) async {
        guard state == .interrupted, let held = interruption, held.cause == cause else { return }
        interruption = nil
        state = .paused
        if case .failed = await play() { publish() }
    }
}
