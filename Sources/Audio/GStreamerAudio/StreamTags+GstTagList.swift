import CGStreamer
import Playback

extension StreamTags {
    /// Reads the tags the core shows in now playing. Borrows `list`; the caller still owns it.
    init(_ list: UnsafeMutablePointer<GstTagList>) {
        self.init()
        title = Self.string(list, GST_TAG_TITLE)
        artist = Self.string(list, GST_TAG_ARTIST)
        albumTitle = Self.string(list, GST_TAG_ALBUM)
        genre = Self.string(list, GST_TAG_GENRE)
        composer = Self.string(list, GST_TAG_COMPOSER)
        releaseDate = Self.date(list)
        albumTrackNumber = Self.number(list, GST_TAG_TRACK_NUMBER)
        albumTrackCount = Self.number(list, GST_TAG_TRACK_COUNT)
        discNumber = Self.number(list, GST_TAG_ALBUM_VOLUME_NUMBER)
        discCount = Self.number(list, GST_TAG_ALBUM_VOLUME_COUNT)
        if let (bytes, mimeType) = Self.image(list) {
            image = bytes
            imageMimeType = mimeType
        }
    }

    private static func string(_ list: UnsafeMutablePointer<GstTagList>, _ tag: String) -> String? {
        var value: UnsafeMutablePointer<gchar>?
        guard gst_tag_list_get_string(list, tag, &value) != 0, let value else { return nil }
        defer { g_free(value) }
        return String(cString: value)
    }

    private static func number(_ list: UnsafeMutablePointer<GstTagList>, _ tag: String) -> Int? {
        var value: guint = 0
        guard gst_tag_list_get_uint(list, tag, &value) != 0, value > 0 else { return nil }
        return Int(value)
    }

    /// Vorbis and ID3 dates arrive as GstDateTime (often a year only); ISO 8601 keeps what is known.
    private static func date(_ list: UnsafeMutablePointer<GstTagList>) -> String? {
        var dateTime: OpaquePointer?
        guard gst_tag_list_get_date_time(list, GST_TAG_DATE_TIME, &dateTime) != 0, let dateTime else { return nil }
        defer { gst_date_time_unref(dateTime) }
        guard let text = gst_date_time_to_iso8601_string(dateTime) else { return nil }
        defer { g_free(text) }
        return String(cString: text)
    }

    /// The first embedded image (files rarely carry more than the front cover).
    private static func image(_ list: UnsafeMutablePointer<GstTagList>) -> ([UInt8], String?)? {
        var sample: OpaquePointer?
        guard gst_tag_list_get_sample(list, GST_TAG_IMAGE, &sample) != 0, let sample else { return nil }
        defer { mn_sample_unref(sample) }
        guard let buffer = gst_sample_get_buffer(sample) else { return nil }
        var map = GstMapInfo()
        guard gst_buffer_map(buffer, &map, GST_MAP_READ) != 0 else { return nil }
        defer { gst_buffer_unmap(buffer, &map) }
        let bytes = Array(UnsafeRawBufferPointer(start: map.data, count: Int(map.size)))
        var mimeType: String?
        if let caps = gst_sample_get_caps(sample), let structure = gst_caps_get_structure(caps, 0),
           let name = gst_structure_get_name(structure) {
            mimeType = String(cString: name)
        }
        return (bytes, mimeType)
    }
}
