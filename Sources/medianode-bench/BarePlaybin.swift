import CGStreamer
import Foundation

/// GStreamer's own floor: a bare playbin with the engine's filter (scaletempo) and the same output the
/// `wav:` sink has (volume, conversion), rendering into a real-time fakesink whose handoff feeds a probe.
/// No actor, no controller, no MQTT: the operations are called directly on the calling thread.
///
/// Threading: used from one thread at a time (the measuring thread), hence `@unchecked Sendable`.
final class BarePlaybin: @unchecked Sendable {
    let playbin: UnsafeMutablePointer<GstElement>
    let probe = RenderProbe()

    init(uri: String) throws {
        gst_init(nil, nil)
        guard let element = gst_element_factory_make("playbin", nil) else { throw BenchError("no playbin") }
        gst_object_ref_sink(element)
        playbin = element
        let caps = "audio/x-raw,format=S16LE,layout=interleaved,rate=44100,channels=2"
        let sink = try Self.bin("volume ! audioconvert ! audioresample ! capsfilter caps=\"\(caps)\" ! "
            + "fakesink name=out sync=true signal-handoffs=true enable-last-sample=false")
        let filter = try Self.bin("scaletempo")
        let fakesink = gst_bin_get_by_name(UnsafeMutableRawPointer(sink).assumingMemoryBound(to: GstBin.self), "out")!
        let context = Unmanaged.passRetained(probe).toOpaque()
        mn_signal_connect(fakesink, "handoff", unsafeBitCast(probeHandoff, to: GCallback.self), context, releaseProbe)
        mn_object_unref(fakesink)
        mn_object_set_object(playbin, "audio-sink", sink)
        mn_object_set_object(playbin, "audio-filter", filter)
        mn_object_unref(sink)
        mn_object_unref(filter)
        mn_object_set_string(playbin, "uri", uri)
        gst_element_set_state(playbin, GST_STATE_PAUSED)
        guard waitForSteadyState() else { throw BenchError("the bare playbin did not preroll") }
    }

    deinit {
        gst_element_set_state(playbin, GST_STATE_NULL)
        mn_object_unref(playbin)
    }

    /// As the engine's play: one state change, not waited for.
    func play() { gst_element_set_state(playbin, GST_STATE_PLAYING) }

    /// As the engine's pause.
    func pause() { gst_element_set_state(playbin, GST_STATE_PAUSED) }

    /// As the engine's seek: flushing, accurate, then waits for the preroll at the new place.
    func seek(to seconds: Double) {
        gst_element_seek(playbin, 1.0, GST_FORMAT_TIME, mn_seek_flags_flush_accurate(), GST_SEEK_TYPE_SET,
                         gint64(seconds * 1e9), GST_SEEK_TYPE_NONE, -1)
        waitForSteadyState()
    }

    @discardableResult
    func waitForSteadyState() -> Bool {
        let result = gst_element_get_state(playbin, nil, nil, GstClockTime(5_000_000_000))
        return result == GST_STATE_CHANGE_SUCCESS || result == GST_STATE_CHANGE_NO_PREROLL
    }

    private static func bin(_ description: String) throws -> UnsafeMutablePointer<GstElement> {
        var error: UnsafeMutablePointer<GError>?
        guard let bin = gst_parse_bin_from_description(description, 1, &error) else {
            throw BenchError("cannot build \(description)")
        }
        if let error { g_error_free(error) }
        gst_object_ref_sink(bin)
        return UnsafeMutableRawPointer(bin).assumingMemoryBound(to: GstElement.self)
    }
}

struct BenchError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// fakesink's "handoff", on the streaming thread: hands the buffer's samples to the probe.
private let probeHandoff: @convention(c) (
    UnsafeMutablePointer<GstElement>?, UnsafeMutablePointer<GstBuffer>?, UnsafeMutablePointer<GstPad>?, gpointer?
) -> Void = { _, buffer, _, context in
    guard let buffer, let context else { return }
    let probe = Unmanaged<RenderProbe>.fromOpaque(context).takeUnretainedValue()
    var map = GstMapInfo()
    guard gst_buffer_map(buffer, &map, GST_MAP_READ) != 0 else { return }
    defer { gst_buffer_unmap(buffer, &map) }
    probe.observe(UnsafeRawBufferPointer(start: map.data, count: Int(map.size)))
}

/// Destroy notify of the handoff connection: drops the probe reference the signal held.
private let releaseProbe: @convention(c) (gpointer?, UnsafeMutablePointer<GClosure>?) -> Void = { context, _ in
    guard let context else { return }
    Unmanaged<RenderProbe>.fromOpaque(context).release()
}
