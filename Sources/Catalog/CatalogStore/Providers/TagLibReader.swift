import CTagLibReader
import ContentTree
import Foundation

/// Reads an audio file's tags and length: the library scanner's seam for a reader outside this target
/// (GStreamer's discoverer, which must share the process's one GStreamer set-up with playback).
///
/// The scanner reads files on every core at once, so `read` may be called concurrently.
public protocol TagReader: Sendable {
    /// The file's tags and length, or nil when this reader cannot open it.
    func read(path: String) -> AudioTags?
}

/// Reads tags and lengths from audio file headers through TagLib, without decoding audio.
///
/// Thread-safe: every call works on its own file object and keeps nothing global, so a scan reads files on
/// all cores at once.
public enum TagLibReader {
    /// The file's tags and length, or nil when TagLib cannot open it (not audio, or an unknown format).
    public static func read(path: String) -> AudioTags? { readWithArtwork(path: path)?.tags }

    /// The file's tags, length and embedded cover (front cover first), or nil when TagLib cannot open it.
    /// A picture that is not JPEG or PNG is left out: those are the only kinds the node publishes.
    public static func readWithArtwork(path: String) -> (tags: AudioTags, artwork: ArtworkBlob?)? {
        var raw = MNTagLibTags()
        guard LocalPath.withCString(path, { mn_taglib_read($0, &raw) }) != 0 else { return nil }
        defer { mn_taglib_tags_free(&raw) }
        let tags = AudioTags(
            title: string(raw.title), artist: string(raw.artist), album: string(raw.album),
            genre: string(raw.genre), year: positive(raw.year), trackNumber: positive(raw.track),
            discNumber: positive(raw.disc),
            duration: raw.lengthMilliseconds > 0 ? Double(raw.lengthMilliseconds) / 1000 : nil,
            composer: string(raw.composer), trackCount: positive(raw.trackCount), discCount: positive(raw.discCount),
            loudness: LoudnessTags.parse(
                trackGain: string(raw.replayGainTrackGain), trackPeak: string(raw.replayGainTrackPeak),
                albumGain: string(raw.replayGainAlbumGain), albumPeak: string(raw.replayGainAlbumPeak),
                r128TrackGain: string(raw.r128TrackGain), r128AlbumGain: string(raw.r128AlbumGain)),
            chapters: chapters(raw))
        guard let bytes = raw.picture, raw.pictureSize > 0 else { return (tags, nil) }
        // The bytes were malloc'd for us: Data takes them over instead of copying up to 8 MiB again.
        raw.picture = nil
        let data = Data(bytesNoCopy: bytes, count: Int(raw.pictureSize), deallocator: .free)
        return (tags, ArtworkBlob.publishable(data))
    }

    /// The chapters as the file gives them, unchecked; a start that could not be read is NaN, so the check
    /// names it. Nil when the file has none.
    private static func chapters(_ raw: MNTagLibTags) -> [ContentChapter]? {
        guard let list = raw.chapters, raw.chapterCount > 0 else { return nil }
        return (0..<Int(raw.chapterCount)).map { index in
            let chapter = list[index]
            let start = chapter.startMilliseconds >= 0 ? Double(chapter.startMilliseconds) / 1000 : .nan
            // Trimmed by the check that follows, not here: Foundation's trimming cost more than TagLib's read.
            return ContentChapter(title: chapter.title.map { String(cString: $0) } ?? "", startTime: start)
        }
    }

    private static func string(_ pointer: UnsafeMutablePointer<CChar>?) -> String? {
        guard let pointer else { return nil }
        let value = String(cString: pointer).trimmingCharacters(in: .whitespacesAndNewlines)
        return value.isEmpty ? nil : value
    }

    private static func positive(_ value: Int32) -> Int? { value > 0 ? Int(value) : nil }
}
