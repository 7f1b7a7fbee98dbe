import CGStreamer
import Foundation
import Synchronization

/// The floor of a track change: a bare playbin with the engine's filter and output, switching gaplessly
/// through a list of files from `about-to-finish` (as the engine does), while a thread of its own waits on
/// the bus and notes when each STREAM_START reaches it. No actor, no controller, no MQTT.
///
/// Threading: `play`, `skip` and `stop` from one measuring thread; the callbacks run on GStreamer's
/// streaming threads and the bus thread, and touch only `shared`.
final class GaplessPlaybin: @unchecked Sendable {
    /// What the callbacks and the bus thread share with the measuring thread.
    final class Shared: Sendable {
        struct State {
            var uris: [String]
            /// The index of the file `about-to-finish` queues next.
            var next = 1
            /// Monotonic nanoseconds at which the bus thread saw each STREAM_START.
            var streamStarts: [Int64] = []
            var running = true
        }
        let state: Mutex<State>
        init(uris: [String]) { state = Mutex(State(uris: uris)) }
    }

    let playbin: UnsafeMutablePointer<GstElement>
    let shared: Shared
    private let bus: UnsafeMutablePointer<GstBus>
    private let busFinished = DispatchSemaphore(value: 0)

    /// Prerolls the first of `uris`; `observer` sees every rendered buffer.
    init(uris: [String], observer: any RenderObserver) throws {
        gst_init(nil, nil)
        guard let element = gst_element_factory_make("playbin", nil) else { throw BenchError("no playbin") }
        gst_object_ref_sink(element)
        playbin = element
        shared = Shared(uris: uris)
        let caps = "audio/x-raw,format=S16LE,layout=interleaved,rate=44100,channels=2"
        var error: UnsafeMutablePointer<GError>?
        guard let sink = gst_parse_bin_from_description(
            "volume ! audioconvert ! audioresample ! capsfilter caps=\"\(caps)\" ! "
                + "fakesink name=out sync=true signal-handoffs=true enable-last-sample=false", 1, &error),
            let filter = gst_element_factory_make("scaletempo", nil)
        else { throw BenchError("cannot build the floor's output") }
        if let error { g_error_free(error) }
        let fakesink = gst_bin_get_by_name(UnsafeMutableRawPointer(sink).assumingMemoryBound(to: GstBin.self), "out")!
        let probe = Unmanaged.passRetained(ObserverBox(observer)).toOpaque()
        mn_signal_connect(fakesink, "handoff", unsafeBitCast(observeHandoff, to: GCallback.self), probe, releaseObserver)
        mn_object_unref(fakesink)
        mn_object_set_object(playbin, "audio-sink", sink)
        mn_object_set_object(playbin, "audio-filter", filter)
        let context = Unmanaged.passRetained(shared).toOpaque()
        mn_signal_connect(playbin, "about-to-finish", unsafeBitCast(queueNext, to: GCallback.self), context, releaseShared)
        mn_object_set_string(playbin, "uri", uris[0])
        bus = gst_element_get_bus(playbin)
        Thread { [self] in readBus() }.start()
        gst_element_set_state(playbin, GST_STATE_PAUSED)
        let result = gst_element_get_state(playbin, nil, nil, GstClockTime(5_000_000_000))
        guard result == GST_STATE_CHANGE_SUCCESS else { throw BenchError("the floor's playbin did not preroll") }
    }

    deinit {
        stop()
        shared.state.withLock { $0.running = false }
        busFinished.wait()
        mn_object_unref(bus)
        mn_object_unref(playbin)
    }

    func play() { gst_element_set_state(playbin, GST_STATE_PLAYING) }

    func stop() { gst_element_set_state(playbin, GST_STATE_NULL) }

    /// As the engine's next track: tear down, load the file at `index`, play.
    func skip(to index: Int) {
        let uri = shared.state.withLock { state in
            state.next = state.uris.count  // no gapless switch out of a skipped-to file
            return state.uris[index]
        }
        gst_element_set_state(playbin, GST_STATE_NULL)
        mn_object_set_string(playbin, "uri", uri)
        gst_element_set_state(playbin, GST_STATE_PLAYING)
    }

    var streamStarts: [Int64] { shared.state.withLock { $0.streamStarts } }

    /// Waits for a STREAM_START seen after `time`; returns when the bus thread saw it.
    func streamStart(after time: Int64, timeout: Double = 5) -> Int64? {
        let deadline = monotonicNanoseconds() + Int64(timeout * 1e9)
        while monotonicNanoseconds() < deadline {
            if let seen = streamStarts.last(where: { $0 > time }) { return seen }
            usleep(50)
        }
        return nil
    }

    private func readBus() {
        let mask = GstMessageType(GST_MESSAGE_STREAM_START.rawValue | GST_MESSAGE_ERROR.rawValue)
        while shared.state.withLock({ $0.running }) {
            guard let message = gst_bus_timed_pop_filtered(bus, 100_000_000, mask) else { continue }
            let now = monotonicNanoseconds()
            if mn_message_type(message) == GST_MESSAGE_STREAM_START {
                shared.state.withLock { $0.streamStarts.append(now) }
            } else {
                print("warning: the floor's playbin reported an error")
            }
            mn_message_unref(message)
        }
        busFinished.signal()
    }
}

/// Holds an observer for a C callback's context.
private final class ObserverBox {
    let observer: any RenderObserver
    init(_ observer: any RenderObserver) { self.observer = observer }
}

/// fakesink's "handoff", on the streaming thread.
private let observeHandoff: @convention(c) (
    UnsafeMutablePointer<GstElement>?, UnsafeMutablePointer<GstBuffer>?, UnsafeMutablePointer<GstPad>?, gpointer?
) -> Void = { _, buffer, _, context in
    guard let buffer, let context else { return }
    let box = Unmanaged<ObserverBox>.fromOpaque(context).takeUnretainedValue()
    var map = GstMapInfo()
    guard gst_buffer_map(buffer, &map, GST_MAP_READ) != 0 else { return }
    defer { gst_buffer_unmap(buffer, &map) }
    box.observer.observe(UnsafeRawBufferPointer(start: map.data, count: Int(map.size)))
}

private let releaseObserver: @convention(c) (gpointer?, UnsafeMutablePointer<GClosure>?) -> Void = { context, _ in
    guard let context else { return }
    Unmanaged<ObserverBox>.fromOpaque(context).release()
}

/// playbin's "about-to-finish": queues the next file of the list, as the engine queues the next item.
private let queueNext: @convention(c) (UnsafeMutablePointer<GstElement>?, gpointer?) -> Void = { playbin, context in
    guard let playbin, let context else { return }
    let shared = Unmanaged<GaplessPlaybin.Shared>.fromOpaque(context).takeUnretainedValue()
    let uri: String? = shared.state.withLock { state in
        guard state.next < state.uris.count else { return nil }
        defer { state.next += 1 }
        return state.uris[state.next]
    }
    if let uri { mn_object_set_string(playbin, "uri", uri) }
}

private let releaseShared: @convention(c) (gpointer?, UnsafeMutablePointer<GClosure>?) -> Void = { context, _ in
    guard let context else { return }
    Unmanaged<GaplessPlaybin.Shared>.fromOpaque(context).release()
}

/// Notes when the output goes from silence to a tone: the moment a tone track starts being heard.
final class ToneStartProbe: RenderObserver {
    private struct State {
        /// Silent samples seen since the last loud stretch.
        var silentSamples = 0
        var starts: [Int64] = []
    }
    private let state = Mutex(State())
    /// A tone after at least this much silence (50 ms) is a new tone track. Silence, not time: a stall of
    /// the streaming thread under load delivers nothing for a while, which is no new track.
    private static let silenceBeforeStart = 2205

    func observe(_ bytes: UnsafeRawBufferPointer) {
        let now = monotonicNanoseconds()
        let samples = bytes.bindMemory(to: Int16.self)
        // A half-volume tone peaks near 16,000; the silent tracks are exactly 0.
        let loud = samples.contains { abs(Int32($0)) > 2000 }
        state.withLock { state in
            guard loud else {
                state.silentSamples += samples.count / 2
                return
            }
            if state.silentSamples >= Self.silenceBeforeStart { state.starts.append(now) }
            state.silentSamples = 0
        }
    }

    /// When each tone was first heard, from `time` on.
    func starts(after time: Int64) -> [Int64] { state.withLock { $0.starts.filter { $0 > time } } }
}
