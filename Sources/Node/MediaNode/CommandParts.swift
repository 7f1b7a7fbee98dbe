import Announcements
import Playback
import RemoteCommands

/// What the command table's handlers reach: each part that owns the state a command changes, as the node
/// wired it. A part this node lacks (no audio, no catalog, no clip output) is nil, and the commands that
/// need it stay without a handler: shown disabled and refused.
struct CommandParts: Sendable {
    /// The configured capability parameters (S7).
    let capabilities: CommandCapabilities
    /// The playback lane: its parts (transport, playhead, queue, sleep timer) are reached through `perform`.
    let playback: PlaybackController?
    /// The listener's level and mute, saved across restarts.
    let volume: ListenerVolume?
    /// like, dislike, bookmark and rating of what plays.
    let marks: FeedbackMarks?
    /// browse, contentItem and search: the tree and the catalog cache.
    let content: ContentCommands?
    /// The catalog's items made into the queue: playItem, prepareQueue, addToQueue.
    let catalogQueue: CatalogQueue?
    /// Local copies for offline listening.
    let downloads: DownloadService?
    let announcer: Announcer?

    /// The lane with the capabilities, for the handlers that need both (a skip's default interval, the rate cycle).
    var playing: (controller: PlaybackController, capabilities: CommandCapabilities)? {
        playback.map { ($0, capabilities) }
    }
}
