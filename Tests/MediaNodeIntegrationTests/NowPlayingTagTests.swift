import Foundation
import MediaJSON
import MediaNode
import MediaNodeTesting
import Testing

@Suite("Now playing carries every tag the file has", .serialized)
struct NowPlayingTagTests {
    /// One track per container format, each tagged with a composer, its disc of two and its track of nine,
    /// the way GStreamer's taggers write them (Vorbis comments COMPOSER and DISCTOTAL, ID3v2 TCOM and TPOS
    /// "1/2", MP4 ©wrt and disk).
    static let formats = ["ogg", "flac", "mp3", "m4a"]

    static func track(_ format: String, index: Int) -> ToneTrack {
        ToneTrack(
            fileName: "\(index + 1)-\(format)/tone.\(format)", frequency: 440 + 110 * index, seconds: 30,
            title: "Tagged \(format)", album: "Album \(format)", trackNumber: 3, trackCount: 9, discNumber: 1,
            discCount: 2, composer: "Composer of \(format)")
    }

    @Test("composer, discNumber, discCount, albumTrackNumber and albumTrackCount show for Ogg Vorbis, FLAC, MP3 and MP4")
    func everyFormatShowsComposerAndDiscCount() async throws {
        let tracks = Self.formats.enumerated().map { Self.track($1, index: $0) }
        let running = try await PlayingNode.start(tracks: tracks)
        #expect(try await running.command("play")["status"] == "success")
        for (index, format) in Self.formats.enumerated() {
            if index > 0 { #expect(try await running.command("nextTrack")["status"] == "success") }
            let title = "Tagged \(format)"
            let expected: [String: JSONValue] = [
                "composer": .string("Composer of \(format)"), "discNumber": 1, "discCount": 2,
                "albumTrackNumber": 3, "albumTrackCount": 9,
            ]
            // The catalog knows them when the track starts: the first document shows them, without waiting
            // for the stream's own tags to catch up.
            let first = try await running.nowPlaying { $0["title"] == .string(title) }
            for (key, value) in expected.sorted(by: { $0.key < $1.key }) {
                #expect(first[key] == value, "\(format) \(key): \(first.jsonString)")
            }
        }
        await running.stop()
    }
}
