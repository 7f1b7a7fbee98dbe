import CGStreamer
import Playback
import Synchronization

/// A note the engine leaves in the bus, between GStreamer's own messages, so the bus thread knows exactly
/// which messages belong to which load: everything before a `.loaded` marker came from the earlier load.
enum BusMarker: Sendable {
    case loaded(PlaybackToken)
    case stopped(PlaybackToken)
    /// Ends the bus thread.
    case quit
}

/// A gapless switch playbin made from inside `about-to-finish`, waiting for its STREAM_START.
struct GaplessSwitch: Sendable {
    /// The load whose chain of items this switch extends; switches of an older load are stale.
    var load: PlaybackToken
    var next: PlaybackToken
}

/// State touched from three threads: the engine's executor, the bus thread, and playbin's streaming
/// thread (in `about-to-finish`). Each access is one short critical section; nothing blocks under the lock.
final class EngineShared: Sendable {
    struct State: Sendable {
        /// Payloads of marker messages posted but not yet read, in posting order (the bus is FIFO too).
        var markers: [BusMarker] = []
        /// The item to switch to when the current one is about to finish.
        var next: (uri: String, token: PlaybackToken)?
        /// The load the running streaming threads belong to; nil when stopped.
        var load: PlaybackToken?
        var switches: [GaplessSwitch] = []
        /// How many switches `about-to-finish` has queued in this engine's life: a seek compares it before
        /// and after, to know whether playbin opened the successor while the seek was being made.
        var switchesQueued: UInt64 = 0
        /// What the output reported when it failed under the current load; `play` answers with it.
        var outputError: String?
        /// The sound server is gone: the engine holds the item and tries the server again (see
        /// `GStreamerEngine+SoundServer`); the errors its sink posts meanwhile are its consequence.
        var soundServerLost = false
        /// Whether the engine's last order to playbin was PLAYING. On a loaded machine playbin can finish a play
        /// after a pause that came while it was completing, and play on under a core that holds the item: the bus
        /// thread then reports nothing, and the engine pauses it again.
        var ordersPlaying = false
    }

    let state = Mutex(State())
    /// The gain stage at the output, told in `about-to-finish` which item comes next.
    let stage: OutputStage
    /// Set when the output is a sound server's stream, which is named after the item heard.
    let soundServer: SoundServerStream?

    init(stage: OutputStage, soundServer: SoundServerStream?) {
        self.stage = stage
        self.soundServer = soundServer
    }

    static let markerName = "medianode-marker"
}

/// playbin's "about-to-finish": called on a streaming thread when the current item has been fully read.
/// Setting `uri` here is the documented way to queue the next item without a gap.
let aboutToFinish: @convention(c) (UnsafeMutablePointer<GstElement>?, gpointer?) -> Void = { playbin, context in
    guard let playbin, let context else { return }
    let shared = Unmanaged<EngineShared>.fromOpaque(context).takeUnretainedValue()
    let next: (uri: String, token: PlaybackToken)? = shared.state.withLock { state in
        guard let next = state.next, let load = state.load else { return nil }
        state.next = nil
        state.switches.append(GaplessSwitch(load: load, next: next.token))
        state.switchesQueued &+= 1
        return next
    }
    shared.stage.queued(next?.token)
    shared.soundServer?.naming.queued(next?.token)
    if let next { mn_object_set_string(playbin, "uri", next.uri) }
}

/// Destroy notify of the about-to-finish connection: drops the reference the signal held.
let releaseShared: @convention(c) (gpointer?, UnsafeMutablePointer<GClosure>?) -> Void = { context, _ in
    guard let context else { return }
    Unmanaged<EngineShared>.fromOpaque(context).release()
}
