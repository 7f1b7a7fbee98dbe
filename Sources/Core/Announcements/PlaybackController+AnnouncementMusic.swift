import Playback

/// The playback controller already holds and gives back the music for announcements (`holdForAnnouncement`,
/// `releaseAfterAnnouncements`) and knows the listener's level: the announcer reaches it through this protocol.
extension PlaybackController: AnnouncementMusic {}
