import ContentTree
import Foundation

/// Turns loudness tags as written into loudness in LUFS, refusing what no real file carries.
///
/// ReplayGain 2.0 gains are relative to -18 LUFS ("-6.50 dB"), Opus's R128 gains a Q7.8 integer relative
/// to -23 LUFS. A tag that is not a number, is not finite, or asks for more than 40 dB either way (a
/// +60 dB tag is a tagger's bug, not a quiet recording) counts as absent: the node measures the file instead.
public enum LoudnessTags {
    static let replayGainReference = -18.0
    static let r128Reference = -23.0
    static let largestGain = 40.0

    /// The loudness the tags say, or nil when they say nothing usable.
    public static func parse(
        trackGain: String?, trackPeak: String?, albumGain: String?, albumPeak: String?,
        r128TrackGain: String?, r128AlbumGain: String?
    ) -> ContentLoudness? {
        let track = gain(trackGain).map { replayGainReference - $0 }
            ?? r128(r128TrackGain).map { r128Reference - $0 }
        let album = gain(albumGain).map { replayGainReference - $0 }
            ?? r128(r128AlbumGain).map { r128Reference - $0 }
        return stored(track: track, album: album, trackPeak: peak(trackPeak), albumPeak: peak(albumPeak))
    }

    /// Loudness values as kept, each checked again (the file may come from an older or foreign writer).
    public static func stored(track: Double?, album: Double?, trackPeak: Double?, albumPeak: Double?) -> ContentLoudness? {
        let plausible = -70.0 ... 3.0
        let track = track.flatMap { plausible.contains($0) ? $0 : nil }
        let album = album.flatMap { plausible.contains($0) ? $0 : nil }
        guard track != nil || album != nil else { return nil }
        let checkedPeak = { (value: Double?) in value.flatMap { $0.isFinite && $0 > 0 && $0 <= 10 ? $0 : nil } }
        return ContentLoudness(track: track, album: album, trackPeak: checkedPeak(trackPeak), albumPeak: checkedPeak(albumPeak))
    }

    /// "-6.50 dB", "+3.1dB", "2": decibels within ±40.
    static func gain(_ text: String?) -> Double? {
        guard var text = text?.trimmingCharacters(in: .whitespaces), !text.isEmpty else { return nil }
        if text.lowercased().hasSuffix("db") { text = String(text.dropLast(2)).trimmingCharacters(in: .whitespaces) }
        if text.hasPrefix("+") { text.removeFirst() }
        guard let value = Double(text), value.isFinite, abs(value) <= largestGain else { return nil }
        return value
    }

    static func r128(_ text: String?) -> Double? {
        guard let text = text?.trimmingCharacters(in: .whitespaces), let value = Int(text) else { return nil }
        let decibels = Double(value) / 256
        return abs(decibels) <= largestGain ? decibels : nil
    }

    static func peak(_ text: String?) -> Double? {
        text.flatMap { Double($0.trimmingCharacters(in: .whitespaces)) }
    }
}
