import CGStreamer
import Foundation
import Synchronization

/// Reads tags and lengths through GStreamer's discoverer, for files TagLib cannot read (a misnamed file, a
/// container TagLib does not know). It prerolls a pipeline per file, so it is the fallback, never the rule.
public enum DiscovererTagReader {
    /// One discoverer, created on first use and reused: making one costs more than most files' discovery.
    /// It is not meant for concurrent use, hence the lock; fallbacks are rare.
    private static let discoverer = Mutex<OpaquePointer?>(nil)

    /// A file that takes longer than this to preroll is given up on and listed under its name.
    static let timeoutSeconds = 5

    private static let initialized: Bool = {
        var error: UnsafeMutablePointer<GError>?
        let ok = gst_init_check(nil, nil, &error) != 0
        if let error { g_error_free(error) }
        return ok
    }()

    /// The tags and length GStreamer finds, or nil when it cannot play the file as audio either.
    public static func read(path: String) -> AudioTags? {
        guard initialized, let uri = fileURI(path) else { return nil }
        return discoverer.withLock { discoverer -> AudioTags? in
            if discoverer == nil {
                discoverer = gst_discoverer_new(GstClockTime(timeoutSeconds * Int(mn_gst_second())), nil).map { OpaquePointer($0) }
            }
            guard let instance = discoverer else { return nil }
            var error: UnsafeMutablePointer<GError>?
            let info = gst_discoverer_discover_uri(UnsafeMutablePointer(instance), uri, &error)
            if let error { g_error_free(error) }
            guard let info else { return nil }
            defer { g_object_unref(UnsafeMutableRawPointer(info)) }
            return tags(of: info)
        }
    }

    private static func tags(of info: OpaquePointer) -> AudioTags? {
        guard gst_discoverer_info_get_result(info) == GST_DISCOVERER_OK else { return nil }
        let streams = gst_discoverer_info_get_audio_streams(info)
        defer { gst_discoverer_stream_info_list_free(streams) }
        guard streams != nil else { return nil }
        var result = AudioTags()
        let nanoseconds = gst_discoverer_info_get_duration(info)
        if nanoseconds > 0, nanoseconds != GstClockTime.max {
            result.duration = (Double(nanoseconds) / Double(mn_gst_second()) * 1000).rounded() / 1000
        }
        guard let list = gst_discoverer_info_get_tags(info) else { return result }
        result.title = string(list, GST_TAG_TITLE)
        result.artist = string(list, GST_TAG_ARTIST)
        result.album = string(list, GST_TAG_ALBUM)
        result.genre = string(list, GST_TAG_GENRE)
        result.trackNumber = number(list, GST_TAG_TRACK_NUMBER)
        result.discNumber = number(list, GST_TAG_ALBUM_VOLUME_NUMBER)
        result.composer = string(list, GST_TAG_COMPOSER)
        result.trackCount = number(list, GST_TAG_TRACK_COUNT)
        result.discCount = number(list, GST_TAG_ALBUM_VOLUME_COUNT)
        var dateTime: OpaquePointer?
        if gst_tag_list_get_date_time(list, GST_TAG_DATE_TIME, &dateTime) != 0, let dateTime {
            let year = Int(gst_date_time_get_year(dateTime))
            result.year = year > 0 ? year : nil
            gst_date_time_unref(dateTime)
        }
        return result
    }

    private static func fileURI(_ path: String) -> String? {
        guard let uri = gst_filename_to_uri(path, nil) else { return nil }
        defer { g_free(uri) }
        return String(cString: uri)
    }

    private static func string(_ list: UnsafePointer<GstTagList>, _ tag: String) -> String? {
        var value: UnsafeMutablePointer<gchar>?
        guard gst_tag_list_get_string(list, tag, &value) != 0, let value else { return nil }
        defer { g_free(value) }
        let text = String(cString: value).trimmingCharacters(in: .whitespacesAndNewlines)
        return text.isEmpty ? nil : text
    }

    private static func number(_ list: UnsafePointer<GstTagList>, _ tag: String) -> Int? {
        var value: guint = 0
        guard gst_tag_list_get_uint(list, tag, &value) != 0, value > 0 else { return nil }
        return Int(value)
    }
}
