import CGStreamer
import Playback
import Synchronization

/// Reads a file's tags and length through GStreamer's discoverer, for files a tag library cannot read (a
/// misnamed file, a container it does not know). It prerolls a pipeline per file, so it is the fallback,
/// never the rule. It lives beside the engine so the process sets GStreamer up in one place.
public enum TagDiscoverer {
    /// What the discoverer found: the tags playback would show, and the length.
    public struct Discovery: Sendable, Equatable {
        public var tags: StreamTags
        /// Seconds, to the millisecond; nil when GStreamer cannot tell.
        public var duration: Double?
    }

    /// One discoverer, created on first use and reused: making one costs more than most files' discovery.
    /// It is not meant for concurrent use, hence the lock; fallbacks are rare.
    private static let discoverer = Mutex<OpaquePointer?>(nil)

    /// A file that takes longer than this to preroll is given up on.
    static let timeoutSeconds = 5

    /// What GStreamer finds in the file at `path` (or a `file://` URI), or nil when it cannot play it as audio.
    public static func discover(path: String) -> Discovery? {
        guard (try? GStreamer.initialize()) != nil, let uri = fileURI(path) else { return nil }
        return discoverer.withLock { discoverer -> Discovery? in
            if discoverer == nil {
                discoverer = gst_discoverer_new(GstClockTime(timeoutSeconds * Int(mn_gst_second())), nil).map { OpaquePointer($0) }
            }
            guard let instance = discoverer else { return nil }
            var error: UnsafeMutablePointer<GError>?
            let info = gst_discoverer_discover_uri(UnsafeMutablePointer(instance), uri, &error)
            if let error { g_error_free(error) }
            guard let info else { return nil }
            defer { g_object_unref(UnsafeMutableRawPointer(info)) }
            return discovery(of: info)
        }
    }

    private static func discovery(of info: OpaquePointer) -> Discovery? {
        guard gst_discoverer_info_get_result(info) == GST_DISCOVERER_OK else { return nil }
        let streams = gst_discoverer_info_get_audio_streams(info)
        defer { gst_discoverer_stream_info_list_free(streams) }
        guard streams != nil else { return nil }
        var result = Discovery(tags: StreamTags())
        let nanoseconds = gst_discoverer_info_get_duration(info)
        if nanoseconds > 0, nanoseconds != GstClockTime.max {
            result.duration = (Double(nanoseconds) / Double(mn_gst_second()) * 1000).rounded() / 1000
        }
        if let list = gst_discoverer_info_get_tags(info) {
            result.tags = StreamTags(UnsafeMutablePointer(mutating: list))
            // A catalog entry keeps its artwork by other means; the picture's bytes are not needed here.
            result.tags.image = nil
            result.tags.imageMimeType = nil
        }
        return result
    }

    /// Unlike `GStreamer.uri(from:)`, always a path: a file named like a URI is still a file here.
    private static func fileURI(_ path: String) -> String? {
        if gst_uri_is_valid(path) != 0 { return path }
        guard let uri = gst_filename_to_uri(path, nil) else { return nil }
        defer { g_free(uri) }
        return String(cString: uri)
    }
}
