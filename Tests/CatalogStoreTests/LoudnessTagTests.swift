import CatalogStore
import ContentTree
import Foundation
import MediaNodeTesting
import Testing

/// Loudness tags as files carry them, good and bad, and what the scan keeps of them.
@Suite("Loudness tags")
struct LoudnessTagParsingTests {
    @Test("ReplayGain 2.0 gains are relative to -18 LUFS and R128 gains to -23; peaks go with them")
    func gains() {
        let tags = LoudnessTags.parse(
            trackGain: "-6.50 dB", trackPeak: "0.988", albumGain: "+2dB", albumPeak: nil, r128TrackGain: nil,
            r128AlbumGain: nil)
        #expect(tags == ContentLoudness(track: -11.5, album: -20, trackPeak: 0.988))
        let opus = LoudnessTags.parse(
            trackGain: nil, trackPeak: nil, albumGain: nil, albumPeak: nil, r128TrackGain: "-1280", r128AlbumGain: "256")
        #expect(opus == ContentLoudness(track: -18, album: -24))
    }

    @Test("absurd tags count as absent: +60 dB, NaN, text, an infinite peak")
    func absurd() {
        for bad in ["+60 dB", "nan", "NaN dB", "loud", "", "1e400", "inf"] {
            #expect(LoudnessTags.parse(trackGain: bad, trackPeak: "inf", albumGain: nil, albumPeak: nil,
                                       r128TrackGain: "x", r128AlbumGain: "99999") == nil, "\(bad)")
        }
        #expect(LoudnessTags.parse(trackGain: "-3", trackPeak: "inf", albumGain: nil, albumPeak: nil,
                                   r128TrackGain: nil, r128AlbumGain: nil)?.trackPeak == nil)
    }

    @Test("TagLib reads a file's ReplayGain tags as loudness; a file without them has none")
    func readerReadsTags() async throws {
        let directory = try AudioFixtures.makeTemporaryDirectory("loudness-scan")
        defer { try? FileManager.default.removeItem(at: directory) }
        var tone = ToneTrack(fileName: "tagged.ogg", frequency: 440, seconds: 1, title: "Tagged")
        tone.extraTags = ["replaygain-track-gain=(double)-4", "replaygain-track-peak=(double)0.5"]
        let file = try await AudioFixtures.writeTone(tone, in: directory)
        let untagged = try await AudioFixtures.writeTone(
            ToneTrack(fileName: "plain.ogg", frequency: 440, seconds: 1, title: "Plain"), in: directory)
        let tags = try #require(TagLibReader.read(path: file.path))
        #expect(tags.loudness == ContentLoudness(track: -14, trackPeak: 0.5))
        #expect(TagLibReader.read(path: untagged.path)?.loudness == nil)
    }
}
