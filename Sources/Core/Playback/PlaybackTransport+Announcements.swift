// MARK: - The music under announcements

/// What announcements do to the music while they play.
public enum MusicHold: Sendable, Equatable {
    /// Lowered to the duck level, still playing.
    case duck
    /// Paused (state `interrupted`), resumed after the last announcement.
    case pause
}

extension PlaybackTransport {
    /// Holds the music for an announcement: ducked, or paused as `interrupted` if it plays.
    nonisolated(nonsending) func holdForAnnouncement(_ hold: MusicHold) async {
        switch hold {
        case .duck:
            guard !isHeldForAnnouncement else { return }
            await level.setDucked(true, for: .announcement)
        case .pause:
            guard !isHeldForAnnouncement else { return }
            await level.setDucked(false, for: .announcement)
            guard state == .playing, queue.currentItem != nil, interruption == nil else { return }
            guard await halt(as: .interrupted) == nil else { return }
            isHeldForAnnouncement = true
            publish()
        }
    }

    /// Gives the music back after the last announcement, unless the listener took over meanwhile.
    nonisolated(nonsending) func releaseAfterAnnouncements() async {
        guard isHeldForAnnouncement else {
            await level.setDucked(false, for: .announcement)
            return
        }
        isHeldForAnnouncement = false
        guard state == .interrupted, interruption == nil else { return }
        state = .paused
        if case .failed = await play() { publish() }
    }
}
