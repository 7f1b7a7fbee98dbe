import CEBUR128
import CGStreamer
import Foundation

/// What measuring one file found.
public enum LoudnessMeasurement: Sendable, Equatable {
    /// EBU R128 integrated loudness (LUFS) and the sample peak (1.0 = full scale).
    case measured(loudness: Double, peak: Double)
    /// Nothing above the R128 gates: silence has no loudness, so it gets no gain.
    case silent
    /// The file could not be decoded, or is longer than the meter takes; the reason says which.
    case refused(String)
}

/// Measures a file's integrated loudness (ITU-R BS.1770 / EBU R128, libebur128) from its decoded audio:
/// GStreamer decodes as fast as it can into float samples, libebur128 takes each buffer.
///
/// Blocking: call it off any thread that must stay responsive. The node runs it in a child process at the
/// lowest CPU priority (`medianode catalog measure`), so decoding never competes with playback and a
/// decoder that crashes on a damaged file takes only that process with it.
public enum LoudnessMeter {
    /// Longer files are refused: ten hours of audio would hold the measurement back for minutes, and a file
    /// that long (a stream recording, an audiobook in one piece) is not music to level.
    public static let longestSeconds = 3.0 * 3600

    public static func measure(path: String) -> LoudnessMeasurement {
        do {
            try GStreamer.initialize()
        } catch {
            return .refused("GStreamer: \(error.message)")
        }
        guard let uri = try? GStreamer.uri(from: path) else { return .refused("not a file path") }
        let description = "uridecodebin name=source ! audioconvert ! "
            + "capsfilter caps=audio/x-raw,format=F32LE,layout=interleaved ! "
            + "fakesink name=meter sync=false signal-handoffs=true enable-last-sample=false"
        var error: UnsafeMutablePointer<GError>?
        guard let pipeline = gst_parse_launch(description, &error) else {
            return .refused("cannot build the pipeline: \(GStreamer.consume(error))")
        }
        if error != nil { _ = GStreamer.consume(error) }
        gst_object_ref_sink(pipeline)
        defer {
            gst_element_set_state(pipeline, GST_STATE_NULL)
            mn_object_unref(pipeline)
        }
        let accumulator = Accumulator()
        guard let source = gst_bin_get_by_name(gcast(pipeline), "source"),
              let sink = gst_bin_get_by_name(gcast(pipeline), "meter")
        else { return .refused("cannot build the pipeline") }
        mn_object_set_string(source, "uri", uri)
        mn_object_unref(source)
        let context = Unmanaged.passRetained(accumulator).toOpaque()
        mn_signal_connect(sink, "handoff", unsafeBitCast(meterHandoff, to: GCallback.self), context, releaseAccumulator)
        mn_object_unref(sink)

        guard gst_element_set_state(pipeline, GST_STATE_PLAYING) != GST_STATE_CHANGE_FAILURE else {
            return .refused("cannot open the file")
        }
        let bus = gst_element_get_bus(pipeline)
        defer { mn_object_unref(bus) }
        let types = GstMessageType(rawValue: GST_MESSAGE_EOS.rawValue | GST_MESSAGE_ERROR.rawValue)
        while true {
            // A bounded wait, so a file longer than the meter takes is given up while it decodes.
            let message = gst_bus_timed_pop_filtered(bus, 500 * 1_000_000, types)
            if accumulator.isOverlong { return .refused("longer than \(Int(longestSeconds / 3600)) hours") }
            guard let message else { continue }
            defer { mn_message_unref(message) }
            if mn_message_type(message) == GST_MESSAGE_ERROR {
                var gerror: UnsafeMutablePointer<GError>?
                gst_message_parse_error(message, &gerror, nil)
                return .refused(GStreamer.consume(gerror))
            }
            return accumulator.result()
        }
    }
}

/// libebur128's state for one file, fed on the sink's streaming thread and read once the bus says EOS.
private final class Accumulator: @unchecked Sendable {
    private var state: UnsafeMutablePointer<ebur128_state>?
    private var channels = 0
    private var rate = 0
    private var frames = 0
    private let lock = NSLock()

    deinit { if state != nil { ebur128_destroy(&state) } }

    var isOverlong: Bool {
        lock.withLock { rate > 0 && Double(frames) / Double(rate) > LoudnessMeter.longestSeconds }
    }

    func add(_ samples: UnsafeRawBufferPointer, pad: UnsafeMutablePointer<GstPad>) {
        lock.withLock {
            if state == nil {
                guard let caps = gst_pad_get_current_caps(pad) else { return }
                defer { mn_caps_unref(caps) }
                var rate: gint = 0, channels: gint = 0
                let structure = gst_caps_get_structure(caps, 0)
                guard gst_structure_get_int(structure, "rate", &rate) != 0,
                      gst_structure_get_int(structure, "channels", &channels) != 0, rate > 0, channels > 0
                else { return }
                state = ebur128_init(UInt32(channels), UInt(rate), mn_ebur128_integrated_and_peak())
                self.rate = Int(rate)
                self.channels = Int(channels)
            }
            guard let state, channels > 0, !isOverlongLocked else { return }
            let count = samples.count / (MemoryLayout<Float>.size * channels)
            guard count > 0, let base = samples.baseAddress else { return }
            ebur128_add_frames_float(state, base.assumingMemoryBound(to: Float.self), count)
            frames += count
        }
    }

    private var isOverlongLocked: Bool { rate > 0 && Double(frames) / Double(rate) > LoudnessMeter.longestSeconds }

    func result() -> LoudnessMeasurement {
        lock.withLock {
            guard let state, frames > 0 else { return .refused("no audio decoded") }
            var loudness = 0.0
            guard ebur128_loudness_global(state, &loudness) == 0 else { return .refused("libebur128 failed") }
            guard loudness.isFinite, loudness > -70 else { return .silent }
            var peak = 0.0
            for channel in 0 ..< channels {
                var value = 0.0
                if ebur128_sample_peak(state, UInt32(channel), &value) == 0 { peak = max(peak, value) }
            }
            return .measured(loudness: loudness, peak: peak)
        }
    }
}

/// fakesink's "handoff": every decoded buffer, on the streaming thread.
private let meterHandoff: @convention(c) (
    UnsafeMutablePointer<GstElement>?, UnsafeMutablePointer<GstBuffer>?, UnsafeMutablePointer<GstPad>?, gpointer?
) -> Void = { _, buffer, pad, context in
    guard let buffer, let pad, let context else { return }
    let accumulator = Unmanaged<Accumulator>.fromOpaque(context).takeUnretainedValue()
    var map = GstMapInfo()
    guard gst_buffer_map(buffer, &map, GST_MAP_READ) != 0 else { return }
    defer { gst_buffer_unmap(buffer, &map) }
    accumulator.add(UnsafeRawBufferPointer(start: map.data, count: Int(map.size)), pad: pad)
}

private let releaseAccumulator: @convention(c) (gpointer?, UnsafeMutablePointer<GClosure>?) -> Void = { context, _ in
    guard let context else { return }
    Unmanaged<Accumulator>.fromOpaque(context).release()
}
