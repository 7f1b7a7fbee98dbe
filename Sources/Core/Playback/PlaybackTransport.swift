// MARK: - The transport (Mopidy's playback controller)

/// The transport: play, pause, stop, the moves between the queue's items and what the engine's facts
/// about them mean, the interruptions and the announcements' pause. It decides every change of state and
/// of the current item; `Playhead` keeps the state and where playback is, `ItemLoader` what the
/// engine holds, `QueueController` the queue.
///
/// Threading: lives in the playback controller's isolation (not `Sendable`); the controller calls it only
/// inside a turn, and its async methods run on the controller.
final class PlaybackTransport {
    let engine: any AudioEngine
    let clock: any PlaybackClock
    let configuration: PlaybackConfiguration
    let queue: QueueController
    let loads: ItemLoader
    let playhead: Playhead
    let level: OutputLevel
    let streams: PlaybackStreams
    var interruption: Interruption?
    /// Whether the music is paused for announcements (see `holdForAnnouncement`).
    var isHeldForAnnouncement = false

    init(engine: any AudioEngine, clock: any PlaybackClock, configuration: PlaybackConfiguration,
         queue: QueueController, loads: ItemLoader, playhead: Playhead, level: OutputLevel,
         streams: PlaybackStreams) {
        self.engine = engine
        self.clock = clock
        self.configuration = configuration
        self.queue = queue
        self.loads = loads
        self.playhead = playhead
        self.level = level
        self.streams = streams
    }

    /// Where playback stands; kept by the playhead, changed here.
    var state: PlaybackState {
        get { playhead.state }
        set { playhead.state = newValue }
    }

    func publish() { playhead.publish() }

    func emit(_ event: PlaybackEvent) { streams.emit(event) }
}
