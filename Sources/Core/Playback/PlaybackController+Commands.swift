// MARK: - The lane's own operations: the held seek's timer and the music under announcements

extension PlaybackController {
    /// Starts a held seek: forward plays at the elevated rate (or steps while paused), backward steps
    /// back every interval, until the playhead's `endSeeking()`. Here rather than on the playhead: the
    /// stepping timer takes a turn of the lane for every step.
    @discardableResult
    public func beginSeeking(forward: Bool) async -> PlaybackOutcome {
        await exclusively {
            await playhead.beginSeeking(forward: forward) { direction in Task { await self.repeatSteps(direction) } }
        }
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

    // MARK: - Interruptions and announcements (`AnnouncementMusic`)

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
