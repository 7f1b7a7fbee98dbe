import CGStreamer
import Foundation
import GStreamerAudio
import Logging

/// GStreamer's own floor: a bare playbin with the engine's filter (scaletempo) and the very output the
/// engine builds for the same sink description (for `wav:`, the same volume, conversion and WAV writer).
/// No actor, no controller, no MQTT: the operations are called directly on the calling thread.
///
/// Threading: used from one thread at a time (the measuring thread), hence `@unchecked Sendable`.
final class BarePlaybin: @unchecked Sendable {
    let playbin: UnsafeMutablePointer<GstElement>
    /// Its output: the volume element, and for `wav:` the file a bare clip can mix into.
    let output: AudioSink

    init(uri: String, output description: AudioSinkDescription) throws {
        gst_init(nil, nil)
        guard let element = gst_element_factory_make("playbin", nil) else { throw BenchError("no playbin") }
        gst_object_ref_sink(element)
        playbin = element
        output = try AudioSink.make(description, logger: Logger(label: "medianode-bench.bare"))
        let filter = try Self.bin("scaletempo")
        mn_object_set_object(playbin, "audio-sink", output.element)
        mn_object_set_object(playbin, "audio-filter", filter)
        mn_object_unref(filter)
        mn_object_set_string(playbin, "uri", uri)
        gst_element_set_state(playbin, GST_STATE_PAUSED)
        guard waitForSteadyState() else { throw BenchError("the bare playbin did not preroll") }
    }

    deinit {
        gst_element_set_state(playbin, GST_STATE_NULL)
        mn_object_unref(playbin)
        mn_object_unref(output.element)
        mn_object_unref(output.volume)
    }

    /// As the engine's play: one state change, not waited for.
    func play() { gst_element_set_state(playbin, GST_STATE_PLAYING) }

    /// As the engine's pause.
    func pause() { gst_element_set_state(playbin, GST_STATE_PAUSED) }

    /// As the engine's seek: flushing and accurate, returning without waiting for the preroll at the new place.
    func seek(to seconds: Double) {
        gst_element_seek(playbin, 1.0, GST_FORMAT_TIME, mn_seek_flags_flush_accurate(), GST_SEEK_TYPE_SET,
                         gint64(seconds * 1e9), GST_SEEK_TYPE_NONE, -1)
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
