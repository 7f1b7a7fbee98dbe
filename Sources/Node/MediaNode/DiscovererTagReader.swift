import CatalogStore
import Foundation
import GStreamerAudio

/// The library scanner's fallback for files TagLib cannot read: GStreamer's discoverer, which shares the
/// process's one GStreamer set-up with playback. Joined here, where both sides are known, so the catalog
/// store needs no GStreamer and the audio engine no catalog.
public struct DiscovererTagReader: TagReader {
    public init() {}

    public func read(path: String) -> AudioTags? {
        // By its URI, whose bytes open a file whose name is not UTF-8 too.
        guard let found = TagDiscoverer.discover(path: LocalPath.fileURI(of: path)) else { return nil }
        let tags = found.tags
        return AudioTags(
            title: Self.text(tags.title), artist: Self.text(tags.artist), album: Self.text(tags.albumTitle),
            genre: Self.text(tags.genre), year: Self.year(tags.releaseDate), trackNumber: tags.albumTrackNumber,
            discNumber: tags.discNumber, duration: found.duration, composer: Self.text(tags.composer),
            trackCount: tags.albumTrackCount, discCount: tags.discCount)
    }

    /// Tags padded with spaces, or present but empty, say nothing.
    static func text(_ value: String?) -> String? {
        guard let trimmed = value?.trimmingCharacters(in: .whitespacesAndNewlines), !trimmed.isEmpty else { return nil }
        return trimmed
    }

    /// The year of an ISO 8601 date ("2014" or "2014-05-01"), as the catalog keeps it.
    static func year(_ date: String?) -> Int? {
        guard let date, let year = Int(date.prefix { $0.isNumber }), year > 0 else { return nil }
        return year
    }
}
