import CTagLib
import Foundation

extension AudioFixtures {
    /// Rewrites a file's title, artist, album and track number in place with TagLib, so one encoded tone
    /// can be copied into thousands of distinct tagged files without encoding each.
    public static func retag(_ url: URL, title: String, artist: String, album: String, trackNumber: Int) -> Bool {
        taglib_set_strings_unicode(1)
        guard let file = taglib_file_new(url.path) else { return false }
        defer { taglib_file_free(file) }
        guard taglib_file_is_valid(file) != 0, let tag = taglib_file_tag(file) else { return false }
        taglib_tag_set_title(tag, title)
        taglib_tag_set_artist(tag, artist)
        taglib_tag_set_album(tag, album)
        taglib_tag_set_track(tag, UInt32(trackNumber))
        return taglib_file_save(file) != 0
    }
}
