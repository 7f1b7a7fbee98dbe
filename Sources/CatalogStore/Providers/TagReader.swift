import CTagLibReader
import Foundation

/// Reads tags and lengths from audio file headers through TagLib, without decoding audio.
///
/// Thread-safe: every call works on its own file object and keeps nothing global, so a scan reads files on
/// all cores at once.
public enum TagReader {
    /// The file's tags and length, or nil when TagLib cannot open it (not audio, or an unknown format).
    public static func read(path: String) -> AudioTags? {
        var raw = MNTagLibTags()
        guard mn_taglib_read(path, &raw) != 0 else { return nil }
        defer { mn_taglib_tags_free(&raw) }
        return AudioTags(
            title: string(raw.title), artist: string(raw.artist), album: string(raw.album),
            genre: string(raw.genre), year: positive(raw.year), trackNumber: positive(raw.track),
            discNumber: positive(raw.disc),
            duration: raw.lengthMilliseconds > 0 ? Double(raw.lengthMilliseconds) / 1000 : nil)
    }

    private static func string(_ pointer: UnsafeMutablePointer<CChar>?) -> String? {
        guard let pointer else { return nil }
        let value = String(cString: pointer).trimmingCharacters(in: .whitespacesAndNewlines)
        return value.isEmpty ? nil : value
    }

    private static func positive(_ value: Int32) -> Int? { value > 0 ? Int(value) : nil }
}
