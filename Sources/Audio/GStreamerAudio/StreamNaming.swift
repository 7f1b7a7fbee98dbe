import CGStreamer
import Playback
import Synchronization

/// Names a sound server's stream after the item heard (`media.name`).
///
/// pulsesink names its stream after the title (or "title by artist", or a location) of every tag event that
/// reaches it, and the server replaces the name given at the stream's creation. So a probe on its sink pad
/// passes the stream's own tags on without those (posting them on the bus in full, as the sink would have,
/// for now playing), and sends the item's title itself before each item's first buffer. MediaNode's own tag
/// events carry a marker tag, so the tag messages they cause are told apart from the stream's.
///
/// Threading: the engine's executor tells it titles and loads, playbin's streaming thread (`about-to-finish`,
/// the probe) the rest; each access is one short critical section. The sink is borrowed: the pipeline owns it,
/// and the probe goes with its pad.
final class StreamNaming: @unchecked Sendable {
    private struct State {
        var titles: [PlaybackToken: String] = [:]
        /// The title of the item heard, and of the gapless successor playbin was given (`.some(nil)`: one
        /// without a title).
        var current: String?
        var upcoming: String??
        var streamID: String?
        /// Whether the stream has been named since its last STREAM_START.
        var isNamed = false
    }

    private let state: Mutex<State>
    private let sink: UnsafeMutablePointer<GstElement>

    /// - Parameter title: the stream's name until a load names another (an announcement's, for good).
    init(sink: UnsafeMutablePointer<GstElement>, title: String? = nil) {
        self.sink = sink
        state = Mutex(State(current: title))
    }

    /// Installs the probe; the naming must outlive the sink's pad (the probe holds a reference to it).
    func attach() {
        guard let pad = gst_element_get_static_pad(sink, "sink") else { return }
        defer { mn_object_unref(pad) }
        let context = Unmanaged.passRetained(self).toOpaque()
        let mask = GstPadProbeType(GST_PAD_PROBE_TYPE_BUFFER.rawValue | GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM.rawValue)
        gst_pad_add_probe(pad, mask, namingProbe, context, releaseNaming)
    }

    // MARK: - From the engine

    func remember(_ title: String?, for token: PlaybackToken) {
        state.withLock { $0.titles[token] = title }
    }

    /// A fresh load under `token`: its title names the stream from its first buffer.
    func loaded(_ token: PlaybackToken) {
        state.withLock { state in
            state.titles = state.titles.filter { $0.key >= token }
            state.current = state.titles[token]
            state.upcoming = nil
            state.streamID = nil
            state.isNamed = false
        }
    }

    /// Called in `about-to-finish` with the successor playbin was just given (nil: none).
    func queued(_ token: PlaybackToken?) {
        state.withLock { state in
            state.upcoming = token.map { state.titles[$0] }
        }
    }

    // MARK: - From the streaming thread

    fileprivate func streamStarted(id: String?) {
        state.withLock { state in
            defer { state.streamID = id }
            // Each STREAM_START may open a new server stream (after NULL, or new caps): name it again.
            state.isNamed = false
            guard state.streamID != nil, state.streamID != id, let upcoming = state.upcoming else { return }
            state.current = upcoming
            state.upcoming = nil
        }
    }

    /// The title to send before this buffer, once per stream start.
    fileprivate func titleToSend() -> String? {
        state.withLock { state in
            guard !state.isNamed else { return nil }
            state.isNamed = true
            return state.current
        }
    }

    fileprivate var currentTitle: String? { state.withLock { $0.current } }

    /// The stream's own tags: in full on the bus, without their names to the sink.
    fileprivate func passOn(_ info: UnsafeMutablePointer<GstPadProbeInfo>, tags: UnsafePointer<GstTagList>) {
        guard mn_tags_name_stream(tags) == 0 else { return }
        mn_post_tags(sink, tags)
        mn_probe_replace_event(info, mn_unnaming_tag_event(tags, currentTitle))
    }
}

/// The probe on the sound server sink's pad: STREAM_START and tag events, and each buffer.
private let namingProbe: @convention(c) (
    UnsafeMutablePointer<GstPad>?, UnsafeMutablePointer<GstPadProbeInfo>?, gpointer?
) -> GstPadProbeReturn = { pad, info, context in
    guard let pad, let info, let context, let data = info.pointee.data else { return GST_PAD_PROBE_OK }
    let naming = Unmanaged<StreamNaming>.fromOpaque(context).takeUnretainedValue()
    if info.pointee.type.rawValue & GST_PAD_PROBE_TYPE_BUFFER.rawValue != 0 {
        // Sent from here, the title event reaches the sink after the stream's caps and segment and before
        // this buffer, on the streaming thread that holds the pad's (recursive) stream lock.
        if let title = naming.titleToSend() { gst_pad_send_event(pad, mn_stream_name_event(title)) }
        return GST_PAD_PROBE_OK
    }
    let event = data.assumingMemoryBound(to: GstEvent.self)
    switch mn_event_type(event) {
    case GST_EVENT_STREAM_START:
        var id: UnsafePointer<gchar>?
        gst_event_parse_stream_start(event, &id)
        naming.streamStarted(id: id.map { String(cString: $0) })
    case GST_EVENT_TAG:
        var tags: UnsafeMutablePointer<GstTagList>?
        gst_event_parse_tag(event, &tags)
        if let tags { naming.passOn(info, tags: tags) }
    default:
        break
    }
    return GST_PAD_PROBE_OK
}

/// Destroy notify of the probe: drops the reference it held on the naming.
private let releaseNaming: @convention(c) (gpointer?) -> Void = { context in
    guard let context else { return }
    Unmanaged<StreamNaming>.fromOpaque(context).release()
}
