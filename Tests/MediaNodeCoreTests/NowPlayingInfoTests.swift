import MediaJSON
import NowPlaying
import Playback
import Testing

/// What `P/nowplaying` shows for each playback state, and which keys it leaves out.
@Suite("Now playing document")
struct NowPlayingInfoTests {
    static let style = QueueItem(
        identifier: "track:style", uri: "file:///music/style.flac", title: "Style", artist: "Taylor Swift",
        albumTitle: "1989", duration: 231, containerIdentifier: "album:1989",
        userInfo: ["genre": "Pop", "releaseDate": "2014", "albumTrackNumber": "3", "albumTrackCount": "13",
                   "discNumber": "1", "discCount": "1", "composer": "Max Martin"])

    static func snapshot(
        _ state: PlaybackState, item: QueueItem? = style, elapsed: Double = 53, timestamp: Double = 1_763_800_000.25,
        rate: Double = 1, tags: StreamTags = StreamTags(), index: Int? = 2, count: Int = 13
    ) -> PlaybackSnapshot {
        let identifiers = (0..<count).map { "track:\($0)" }
        return PlaybackSnapshot(
            state: state, item: item, tags: tags, elapsed: elapsed, timestamp: timestamp,
            playbackRate: state == .playing ? rate : 0, rate: rate, duration: item?.duration,
            queue: QueueSummary(identifiers: identifiers, index: index, repeatMode: .all, shuffleMode: .items))
    }

    @Test("nothing loaded publishes exactly {\"state\":\"stopped\"}")
    func stoppedDocument() {
        let info = NowPlayingInfo(snapshot: Self.snapshot(.stopped, item: nil))
        #expect(info.json.jsonString == #"{"state":"stopped"}"#)
        let stale = NowPlayingInfo(snapshot: Self.snapshot(.stopped), artwork: .init(topic: "t", mimeType: "image/png"))
        #expect(stale.json.jsonString == #"{"state":"stopped"}"#, "a stopped state shows nothing of the old item")
        #expect(stale == NowPlayingInfo.stopped)
        let built = NowPlayingInfo(state: .stopped, timestamp: 5, elapsedPlaybackTime: 9, playbackRate: 1)
        #expect(built == NowPlayingInfo.stopped)
    }

    @Test("a playing item shows every key of the contract it has")
    func playingDocument() throws {
        let artwork = NowPlayingArtwork(
            topic: "medianode/car1/artwork/9f2c", mimeType: "image/jpeg", width: 600, height: 600)
        let info = NowPlayingInfo(
            snapshot: Self.snapshot(.playing), artwork: artwork, nowPlayingIdentifiers: ["library", "album:1989"])
        let expected: JSONValue = [
            "state": "playing", "timestamp": 1_763_800_000.25, "elapsedPlaybackTime": 53, "playbackRate": 1,
            "defaultPlaybackRate": 1, "playbackDuration": 231, "title": "Style", "artist": "Taylor Swift",
            "albumTitle": "1989", "genre": "Pop", "releaseDate": "2014", "albumTrackNumber": 3,
            "albumTrackCount": 13, "discNumber": 1, "discCount": 1, "composer": "Max Martin",
            "playbackQueueIndex": 2, "playbackQueueCount": 13, "isLiveStream": false, "mediaType": "audio",
            "identifier": "track:style", "nowPlayingIdentifiers": ["library", "album:1989"],
            "artwork": ["topic": "medianode/car1/artwork/9f2c", "mimeType": "image/jpeg", "width": 600, "height": 600],
            "repeatMode": "all", "shuffleMode": "items",
        ]
        #expect(info.json == expected)
        let text = info.json.jsonString
        #expect(text.contains(#""timestamp":1763800000.25"#))
        #expect(text.contains(#""albumTrackNumber":3,"#), "integers print without a fraction")
        #expect(try JSONValue(parsing: text) == expected, "the published text reads back as the same document")
    }

    @Test("paused shows rate 0 and the position where it stopped")
    func pausedFreezes() {
        let info = NowPlayingInfo(snapshot: Self.snapshot(.paused, elapsed: 80, rate: 1.5))
        #expect(info.json["state"] == "paused")
        #expect(info.json["playbackRate"] == 0)
        #expect(info.json["elapsedPlaybackTime"] == 80)
        #expect(info.elapsed(at: info.timestamp + 600) == 80, "a reader's extrapolation stands still")
    }

    @Test("interrupted shows rate 0 even when handed a running rate")
    func interruptedFreezes() {
        let info = NowPlayingInfo(state: .interrupted, timestamp: 10, elapsedPlaybackTime: 12, playbackRate: 1)
        #expect(info.json["state"] == "interrupted")
        #expect(info.json["playbackRate"] == 0)
        #expect(info.elapsed(at: 100) == 12)
    }

    @Test("keys the item lacks are omitted, not null")
    func missingKeysOmitted() {
        let bare = QueueItem(identifier: "file:1", uri: "file:///x.ogg")
        let info = NowPlayingInfo(snapshot: Self.snapshot(.playing, item: bare))
        let keys = Set(info.json.objectValue?.keys ?? [:].keys)
        #expect(keys == [
            "state", "timestamp", "elapsedPlaybackTime", "playbackRate", "defaultPlaybackRate", "isLiveStream",
            "mediaType", "identifier", "playbackQueueIndex", "playbackQueueCount", "repeatMode", "shuffleMode",
        ])
        #expect(!info.json.jsonString.contains("null"))
    }

    @Test("blank text and out-of-range numbers count as missing")
    func blanksOmitted() {
        var tags = StreamTags()
        tags.title = "   "
        tags.albumTrackNumber = 0
        tags.discNumber = 0
        tags.discCount = 0
        let bare = QueueItem(identifier: "file:1", uri: "file:///x.ogg", artist: "")
        let json = NowPlayingInfo(snapshot: Self.snapshot(.playing, item: bare, tags: tags)).json
        for key in ["title", "artist", "albumTrackNumber", "discNumber", "discCount"] {
            #expect(json[key] == nil, "\(key) is omitted")
        }
    }

    @Test("a live stream says so and has no duration")
    func liveStream() {
        let radio = QueueItem(identifier: "radio:1", uri: "http://radio/stream", title: "Radio One", isLiveStream: true)
        var snapshot = Self.snapshot(.playing, item: radio, elapsed: 4_000)
        snapshot.duration = 3_600  // even if the engine reports one
        let json = NowPlayingInfo(snapshot: snapshot).json
        #expect(json["isLiveStream"] == true)
        #expect(json["playbackDuration"] == nil)
        #expect(json["elapsedPlaybackTime"] == 4_000)
    }

    @Test("the queue index counts from 0, track and disc numbers from 1")
    func counting() {
        let first = NowPlayingInfo(snapshot: Self.snapshot(.playing, index: 0, count: 1))
        #expect(first.json["playbackQueueIndex"] == 0, "the first item is index 0, not omitted")
        #expect(first.json["playbackQueueCount"] == 1)
        let outside = NowPlayingInfo(snapshot: Self.snapshot(.playing, index: 5, count: 3))
        #expect(outside.json["playbackQueueIndex"] == nil, "an index past the queue is not shown")
        let chapters = NowPlayingMetadata(albumTrackNumber: 1, discNumber: 1, chapterNumber: 0, chapterCount: 4)
        let json = NowPlayingInfo(
            state: .playing, timestamp: 0, elapsedPlaybackTime: 0, playbackRate: 1, metadata: chapters).json
        #expect(json["albumTrackNumber"] == 1)
        #expect(json["discNumber"] == 1)
        #expect(json["chapterNumber"] == 0, "chapter 0 is the first chapter, kept")
        #expect(json["chapterCount"] == 4)
    }

    @Test("elapsed stays within the item")
    func elapsedClamped() {
        let past = NowPlayingInfo(
            state: .playing, timestamp: 0, elapsedPlaybackTime: 500, playbackRate: 1, playbackDuration: 231)
        #expect(past.elapsedPlaybackTime == 231)
        #expect(past.elapsed(at: 100) == 231)
        let before = NowPlayingInfo(state: .paused, timestamp: 0, elapsedPlaybackTime: -3, playbackRate: 0)
        #expect(before.elapsedPlaybackTime == 0)
    }
}
