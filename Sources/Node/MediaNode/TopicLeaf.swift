/// The leaf of each topic the node publishes or reads under its prefix (`P/<leaf>` in topics.md), named
/// once: `TopicLayout` builds the topics from them, the tests read the list, and `medianode docs` writes
/// them into the dashboard's script.
public enum TopicLeaf: String, CaseIterable, Sendable {
    case status
    case info
    case commands
    case nowPlaying = "nowplaying"
    /// The playing item's picture itself (see `TopicLayout.nowPlayingArtwork`).
    case nowPlayingArtwork = "nowplaying/artwork"
    case queue
    case volume
    case result
    case events
    case context
    case metrics
    /// The content tree's root; its nodes are below it, one level per index.
    case contentTree = "content/tree"
    /// Commands are below it, one topic each (`P/cmd/<command>`).
    case command = "cmd"
    /// Pictures are below it, one topic each (`P/artwork/<key>`).
    case artwork
}
