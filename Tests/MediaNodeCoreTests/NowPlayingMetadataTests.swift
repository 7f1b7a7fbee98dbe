import MediaJSON
import NowPlaying
import Playback
import Testing

/// Where each descriptive key comes from: the catalog first, the stream's tags for the gaps, and a live
/// stream's current title from its ICY metadata.
@Suite("Now playing metadata")
struct NowPlayingMetadataTests {
    static func tags(title: String? = nil, artist: String? = nil, album: String? = nil, genre: String? = nil,
                     track: Int? = nil) -> StreamTags {
        var tags = StreamTags()
        tags.title = title
        tags.artist = artist
        tags.albumTitle = album
        tags.genre = genre
        tags.albumTrackNumber = track
        return tags
    }

    static func info(_ item: QueueItem, _ tags: StreamTags, catalog: NowPlayingMetadata? = nil) -> NowPlayingInfo {
        NowPlayingInfo(snapshot: PlaybackSnapshot(
            state: .playing, item: item, tags: tags, elapsed: 0, timestamp: 100, playbackRate: 1,
            queue: QueueSummary(identifiers: [item.identifier], index: 0)), catalog: catalog)
    }

    @Test("the catalog wins and tags fill only what it lacks")
    func catalogThenTags() {
        let item = QueueItem(identifier: "t:1", uri: "file:///a.flac", title: "Style", artist: "Taylor Swift")
        let tags = Self.tags(title: "style (remaster)", artist: "T. Swift", album: "1989", genre: "Pop", track: 3)
        let json = Self.info(item, tags).json
        #expect(json["title"] == "Style")
        #expect(json["artist"] == "Taylor Swift")
        #expect(json["albumTitle"] == "1989")
        #expect(json["genre"] == "Pop")
        #expect(json["albumTrackNumber"] == 3)
    }

    @Test("catalog metadata given explicitly replaces the queue item's")
    func explicitCatalog() {
        let item = QueueItem(identifier: "t:1", uri: "file:///a.flac", title: "from the queue")
        let catalog = NowPlayingMetadata(title: "Clean", genre: "Jazz", discNumber: 2, discCount: 2)
        let json = Self.info(item, Self.tags(genre: "Rock"), catalog: catalog).json
        #expect(json["title"] == "Clean")
        #expect(json["genre"] == "Jazz")
        #expect(json["discNumber"] == 2)
    }

    @Test("catalog keys the queue item cannot hold travel in its userInfo")
    func userInfoKeys() {
        let item = QueueItem(
            identifier: "t:1", uri: "file:///a.flac",
            userInfo: ["composer": "Bach", "chapterNumber": "0", "chapterCount": "12", "albumTrackNumber": "x"])
        let metadata = NowPlayingMetadata(item: item)
        #expect(metadata.composer == "Bach")
        // Chapters come from the item's own list, where the audio is, not from userInfo.
        #expect(metadata.chapterNumber == nil && metadata.chapterCount == nil)
        #expect(metadata.albumTrackNumber == nil, "text that is no number is ignored")
        // What the catalog writes into userInfo comes back whole.
        let written = NowPlayingMetadata(genre: "Jazz", releaseDate: "1959", composer: "Davis", albumTrackNumber: 2,
                                         albumTrackCount: 5, discNumber: 1, discCount: 1)
        #expect(written.userInfo.count == NowPlayingMetadata.UserInfoKey.allCases.count)
        #expect(NowPlayingMetadata(item: QueueItem(identifier: "t:2", uri: "file:///b.flac", userInfo: written.userInfo)) == written)
    }

    @Test("a live stream's ICY title \"Artist - Title\" replaces the station's title and artist")
    func liveTitleFromICY() {
        let radio = QueueItem(
            identifier: "radio:1", uri: "http://radio/stream", title: "Radio One", artist: "BBC", isLiveStream: true)
        let first = Self.info(radio, Self.tags(title: "Daft Punk - One More Time")).json
        #expect(first["title"] == "One More Time")
        #expect(first["artist"] == "Daft Punk")
        let next = Self.info(radio, Self.tags(title: "Air - La femme d'argent")).json
        #expect(next["title"] == "La femme d'argent")
        #expect(next["artist"] == "Air")
    }

    @Test("a live stream without a current title shows the station")
    func liveWithoutTitle() {
        let radio = QueueItem(
            identifier: "radio:1", uri: "http://radio/stream", title: "Radio One", artist: "BBC", isLiveStream: true)
        let silent = Self.info(radio, Self.tags(title: "")).json
        #expect(silent["title"] == "Radio One", "an empty StreamTitle between songs is no title")
        #expect(silent["artist"] == "BBC")
        let plain = Self.info(radio, Self.tags(title: "News at Six")).json
        #expect(plain["title"] == "News at Six", "without a separator it is all title")
        #expect(plain["artist"] == "BBC")
    }

    @Test("on-demand items keep the catalog title even when tags carry \"Artist - Title\"")
    func onDemandIgnoresICYSplit() {
        let item = QueueItem(identifier: "t:1", uri: "file:///a.mp3", title: "Catalog Title")
        let json = Self.info(item, Self.tags(title: "Someone - Something")).json
        #expect(json["title"] == "Catalog Title")
        #expect(json["artist"] == nil)
    }

    @Test("splitting a StreamTitle uses the first separator and trims")
    func splitting() {
        let cases: [(String, String?, String)] = [
            ("Artist - Title", "Artist", "Title"),
            ("A - B - C", "A", "B - C"),
            ("Title only", nil, "Title only"),
            ("Jean-Michel Jarre - Oxygène", "Jean-Michel Jarre", "Oxygène"),
            (" - Title", nil, " - Title"),
            ("Artist - ", nil, "Artist - "),
        ]
        for (text, artist, title) in cases {
            let split = NowPlayingMetadata.splitStreamTitle(text)
            #expect(split.artist == artist, "\(text)")
            #expect(split.title == title, "\(text)")
        }
    }
}
