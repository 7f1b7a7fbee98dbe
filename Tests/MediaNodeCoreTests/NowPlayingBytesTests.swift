import MediaJSON
import NowPlaying
import Playback
import Testing

/// The bytes `P/nowplaying` is published as are written key by key; they must be exactly the generic
/// writer's bytes of the same document, which readers and change detection have always seen.
@Suite("Now playing bytes")
struct NowPlayingBytesTests {
    static let metadata = NowPlayingMetadata(
        title: "Chapter \"One\"\n", artist: "Ünïcødé ✓", albumTitle: "1989", genre: "Pop", releaseDate: "2014",
        composer: "Max Martin", albumTrackNumber: 3, albumTrackCount: 13, discNumber: 1, discCount: 2,
        chapterNumber: 4, chapterCount: 12, chapterTitle: "The Start")

    static var documents: [NowPlayingInfo] {
        var all: [NowPlayingInfo] = [.stopped]
        let states: [PlaybackState] = [.playing, .paused, .interrupted, .stopped]
        for state in states {
            var full = NowPlayingInfo(
                state: state, timestamp: 1_763_800_000.25, elapsedPlaybackTime: 53.125, playbackRate: state == .playing ? 1.5 : 0,
                defaultPlaybackRate: 1, playbackDuration: 231.5, metadata: metadata, playbackQueueIndex: 2,
                playbackQueueCount: 13, isLiveStream: false, identifier: "track:style",
                nowPlayingIdentifiers: ["library", "album:1989", "track:style"],
                artwork: NowPlayingArtwork(topic: "node/artwork/ab12", mimeType: "image/jpeg", width: 512, height: 500),
                repeatMode: .all, shuffleMode: .items)
            full.loudness = -14.2
            full.sleepTimer = SleepTimer(endsAt: 1_763_800_900.5, fadeOut: 10)
            all.append(full)
            var bare = NowPlayingInfo(state: state, timestamp: 0, elapsedPlaybackTime: 0, playbackRate: 0)
            bare.isLiveStream = true
            all.append(bare)
            var partial = full
            partial.metadata = NowPlayingMetadata(title: "Only a title")
            partial.artwork = NowPlayingArtwork(topic: "t", mimeType: "image/png")
            partial.sleepTimer = SleepTimer(endsAt: nil, fadeOut: 2.5)
            partial.nowPlayingIdentifiers = []
            partial.playbackDuration = nil
            partial.loudness = nil
            all.append(partial)
        }
        return all
    }

    @Test("every key, none, and some: the same bytes as the generic writer's")
    func sameBytes() {
        for document in Self.documents {
            #expect(document.jsonBytes == document.json.jsonBytes,
                    "\(String(decoding: document.jsonBytes, as: UTF8.self)) vs \(document.json.jsonString)")
        }
    }

    @Test("the center hands out the bytes of the document it would publish")
    func centerBytes() {
        var center = NowPlayingCenter(positionTolerance: 0.04)
        let document = Self.documents[1]
        #expect(center.offerBytes(document) == document.json.jsonBytes)
        #expect(center.offerBytes(document) == nil, "the same document again is nothing new")
    }
}
