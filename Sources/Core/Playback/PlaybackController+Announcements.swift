// MARK: - The music under announcements

/// What announcements do to the music while they play.
public enum MusicHold: Sendable, Equatable {
    /// Lowered to the duck level, still playing.
    case duck
    /// Paused (state `interrupted`), resumed after the last announcement.
    case pause
}

extension PlaybackController {
    /// Holds the music for an announcement. A duck lowers the output at once; a pause halts playing music
    /// as `interrupted` (music that is not playing is left as it is, and stays so). Once paused for one
    /// announcement, the music stays paused for the ones that follow.
    public func holdForAnnouncement(_ hold: MusicHold) async {
        await exclusively {
            switch hold {
            case .duck:
                guard announcementHold == nil else { return }
                announcementHold = .duck
                await applyOutputVolume()
            case .pause:
                guard announcementHold != .pause else { return }
                let wasDucked = announcementHold == .duck
                announcementHold = nil
                if wasDucked { await applyOutputVolume() }
                guard state == .playing, queue.currentItem != nil, interruption == nil else { return }
                guard await halt(as: .interrupted) == nil else { return }
                announcementHold = .pause
                publish()
            }
        }
    }

    /// Gives the music back after the last announcement: the listener's level at once, or playing again
    /// where it paused, unless the listener has since paused, played or stopped it themselves.
    public func releaseAfterAnnouncements() async {
        await exclusively {
            guard let hold = announcementHold else { return }
            announcementHold = nil
            switch hold {
            case .duck:
                await applyOutputVolume()
            case .pause:
                guard state == .interrupted, interruption == nil else { return }
                state = .paused
                if case .failed = await playInTurn() { publish() }
            }
        }
    }

    /// The listener's level, which an announcement without a `volume` plays at.
    public var listenerVolume: Double { volume }
}
