import CGStreamer
import Foundation
import Synchronization

/// The sound server's floor: a bare playbin into a bare pulsesink (the named sink, `media.role=music`, no
/// volume stage, no stream naming), with a thread on its bus that applies each cork or uncork request the
/// moment it arrives and stamps it, and stamps each error. No actor, no controller, no MQTT.
final class FloorPlaybin: @unchecked Sendable {
    private let playbin: UnsafeMutablePointer<GstElement>
    private let stamps = Mutex<[(time: Double, kind: Kind)]>([])
    private let stopped = Atomic<Bool>(false)
    private var thread: Thread?

    enum Kind: Equatable {
        case request(paused: Bool)
        case error
    }

    init(uri: String, sink device: String) throws {
        gst_init(nil, nil)
        guard let element = gst_element_factory_make("playbin", nil), let sink = gst_element_factory_make("pulsesink", nil)
        else { throw BenchError("no playbin or pulsesink (gstreamer1.0-pulseaudio)") }
        gst_object_ref_sink(element)
        playbin = element
        mn_object_set_string(sink, "device", device)
        if let properties = gst_structure_new_from_string("props, media.role=(string)music, application.name=(string)floor") {
            mn_object_set_structure(sink, "stream-properties", properties)
            gst_structure_free(properties)
        }
        mn_object_set_object(playbin, "audio-sink", sink)
        mn_object_set_string(playbin, "uri", uri)
        gst_element_set_state(playbin, GST_STATE_PAUSED)
        guard gst_element_get_state(playbin, nil, nil, GstClockTime(5_000_000_000)) == GST_STATE_CHANGE_SUCCESS else {
            throw BenchError("the floor's playbin did not preroll on the sound server")
        }
        let thread = Thread { [self] in readBus() }
        thread.name = "medianode-bench.floor-bus"
        thread.start()
        self.thread = thread
    }

    deinit {
        gst_element_set_state(playbin, GST_STATE_NULL)
        mn_object_unref(playbin)
    }

    func play() { gst_element_set_state(playbin, GST_STATE_PLAYING) }

    func stop() {
        stopped.store(true, ordering: .relaxed)
        gst_element_set_state(playbin, GST_STATE_NULL)
    }

    /// Where the playbin is, in seconds (0 when it cannot say).
    func position() -> Double {
        var nanoseconds: gint64 = -1
        guard gst_element_query_position(playbin, GST_FORMAT_TIME, &nanoseconds) != 0, nanoseconds >= 0 else { return 0 }
        return Double(nanoseconds) / 1e9
    }

    /// The floor of a server's return: the pipeline taken down and opened again at `seconds`, playing.
    func reopen(at seconds: Double) {
        gst_element_set_state(playbin, GST_STATE_NULL)
        gst_element_set_state(playbin, GST_STATE_PAUSED)
        _ = gst_element_get_state(playbin, nil, nil, GstClockTime(5_000_000_000))
        gst_element_seek_simple(playbin, GST_FORMAT_TIME, GstSeekFlags(GST_SEEK_FLAG_FLUSH.rawValue | GST_SEEK_FLAG_ACCURATE.rawValue),
                                gint64(seconds * 1e9))
        gst_element_set_state(playbin, GST_STATE_PLAYING)
    }

    /// When the first cork (`paused`) or uncork request after `time` arrived (seconds since the epoch).
    func firstRequest(paused: Bool, after time: Double, timeout: Double = 5) async throws -> Double {
        try await first(.request(paused: paused), after: time, timeout: timeout)
    }

    /// When the first error after `time` arrived.
    func firstError(after time: Double, timeout: Double = 5) async throws -> Double {
        try await first(.error, after: time, timeout: timeout)
    }

    private func first(_ kind: Kind, after time: Double, timeout: Double) async throws -> Double {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if let stamp = stamps.withLock({ $0.first { $0.kind == kind && $0.time >= time } }) { return stamp.time }
            try await Task.sleep(for: .milliseconds(2))
        }
        throw BenchError("the floor saw no \(kind) within \(timeout) s")
    }

    private func readBus() {
        guard let bus = gst_element_get_bus(playbin) else { return }
        defer { mn_object_unref(bus) }
        let mask = GstMessageType(GST_MESSAGE_REQUEST_STATE.rawValue | GST_MESSAGE_ERROR.rawValue)
        while !stopped.load(ordering: .relaxed) {
            guard let message = gst_bus_timed_pop_filtered(bus, 20_000_000, mask) else { continue }
            let time = Date().timeIntervalSince1970
            if mn_message_type(message) == GST_MESSAGE_REQUEST_STATE {
                var requested = GST_STATE_VOID_PENDING
                gst_message_parse_request_state(message, &requested)
                if requested == GST_STATE_PAUSED || requested == GST_STATE_PLAYING {
                    gst_element_set_state(playbin, requested)
                    stamps.withLock { $0.append((time, .request(paused: requested == GST_STATE_PAUSED))) }
                }
            } else {
                stamps.withLock { $0.append((time, .error)) }
            }
            mn_message_unref(message)
        }
    }
}
