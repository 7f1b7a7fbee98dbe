import CGStreamer
import Foundation
import Playback

/// Process-wide GStreamer set-up and the small conversions every file of this target needs.
enum GStreamer {
    /// `gst_init` must run once per process before any other call; a Swift static is initialised exactly
    /// once, thread-safely, so it doubles as the guard.
    private static let initialization: AudioError? = {
        var error: UnsafeMutablePointer<GError>?
        guard gst_init_check(nil, nil, &error) != 0 else {
            return AudioError(.engine, "GStreamer failed to initialise: \(consume(error))")
        }
        mn_register_stream_name_tag()
        return nil
    }()

    /// Initialises GStreamer if no one has yet. Safe from any thread.
    static func initialize() throws(AudioError) {
        if let failure = initialization { throw failure }
    }

    /// Turns a plain path into a `file://` URI and leaves URLs alone, as `load` accepts both.
    static func uri(from pathOrURI: String) throws(AudioError) -> String {
        if gst_uri_is_valid(pathOrURI) != 0 { return pathOrURI }
        var error: UnsafeMutablePointer<GError>?
        guard let uri = gst_filename_to_uri(pathOrURI, &error) else {
            throw AudioError(.item, "not a path or URI: \(pathOrURI) (\(consume(error)))")
        }
        defer { g_free(uri) }
        return String(cString: uri)
    }

    /// Reads a GError's message and frees it; GLib hands ownership of errors to the caller.
    static func consume(_ error: UnsafeMutablePointer<GError>?) -> String {
        guard let error else { return "unknown error" }
        defer { g_error_free(error) }
        return error.pointee.message.map { String(cString: $0) } ?? "unknown error"
    }

    /// Nanoseconds as GStreamer counts them, from seconds. Saturates instead of trapping: a position
    /// past ~292 years (or NaN) is a bug upstream, not a reason to take the process down.
    static func clockTime(seconds: Double) -> gint64 {
        let nanoseconds = (max(0, seconds) * Double(mn_gst_second())).rounded()
        guard nanoseconds.isFinite else { return seconds.isNaN ? 0 : gint64.max }
        return gint64(exactly: nanoseconds) ?? (nanoseconds > 0 ? gint64.max : 0)
    }

    static func seconds(_ time: gint64) -> Double { Double(time) / Double(mn_gst_second()) }
}

extension GStreamerEngine {
    /// Starts GStreamer's process-wide set-up (loading its plugin registry, several milliseconds) on a
    /// thread of its own, for a program that makes an engine soon: the engine then finds it done, or waits
    /// for the rest. A failure is reported when the engine is made.
    public static func prepareInBackground() {
        Thread.detachNewThread { try? GStreamer.initialize() }
    }
}

/// GObject's C "inheritance": a pointer to an instance is a pointer to each of its parent structs.
func gcast<From, To>(_ pointer: UnsafeMutablePointer<From>, to: To.Type = To.self) -> UnsafeMutablePointer<To> {
    UnsafeMutablePointer<To>(OpaquePointer(pointer))
}
