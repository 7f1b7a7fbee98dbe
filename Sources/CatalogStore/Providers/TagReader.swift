import CTagLib
import Foundation
import Synchronization

/// Reads tags and lengths from audio file headers through TagLib's C API, without decoding audio.
///
/// TagLib's C API keeps global string-management state, so calls are serialized by one lock.
public enum TagReader {
    private static let lock = Mutex(())

    /// The file's tags and length, or nil when TagLib cannot open it (not audio, or an unknown format).
    /// TagLib's C API gives whole seconds and no disc number.
    public static func read(path: String) -> AudioTags? {
        lock.withLock { _ in
            taglib_set_strings_unicode(1)
            // Strings are freed one by one below instead of kept in TagLib's global list.
            taglib_set_string_management_enabled(0)
            guard let file = taglib_file_new(path) else { return nil }
            defer { taglib_file_free(file) }
            guard taglib_file_is_valid(file) != 0 else { return nil }
            // TagLib's MPEG reader accepts almost any bytes; real audio has a sample rate.
            guard let properties = taglib_file_audioproperties(file),
                taglib_audioproperties_samplerate(properties) > 0
            else { return nil }
            var tags = AudioTags()
            if let tag = taglib_file_tag(file) {
                tags.title = string(taglib_tag_title(tag))
                tags.artist = string(taglib_tag_artist(tag))
                tags.album = string(taglib_tag_album(tag))
                tags.genre = string(taglib_tag_genre(tag))
                let year = Int(taglib_tag_year(tag))
                tags.year = year > 0 ? year : nil
                let track = Int(taglib_tag_track(tag))
                tags.trackNumber = track > 0 ? track : nil
            }
            let length = Int(taglib_audioproperties_length(properties))
            tags.duration = length > 0 ? Double(length) : nil
            return tags
        }
    }

    /// Copies and frees a TagLib string; empty becomes nil.
    private static func string(_ pointer: UnsafeMutablePointer<CChar>?) -> String? {
        guard let pointer else { return nil }
        defer { taglib_free(pointer) }
        let value = String(cString: pointer).trimmingCharacters(in: .whitespacesAndNewlines)
        return value.isEmpty ? nil : value
    }
}
