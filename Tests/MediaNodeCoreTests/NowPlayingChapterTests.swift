import MediaJSON
import NowPlaying
import Playback
import Testing

/// Chapters in now playing, on plain values: which chapter a position is in, when the next boundary comes,
/// and what the document says (version 1.3).
@Suite("Now playing chapters")
struct NowPlayingChapterTests {
    static let chapters = [
        QueueItem.Chapter(title: "Opening", startTime: 0), QueueItem.Chapter(title: "The Crossing", startTime: 60),
        QueueItem.Chapter(title: "Landfall", startTime: 150),
    ]
    static let book = QueueItem(identifier: "book", uri: "file:///book.mp3", title: "Voyage", duration: 200, chapters: chapters)

    static func snapshot(elapsed: Double, rate: Double = 1, state: PlaybackState = .playing, item: QueueItem = book) -> PlaybackSnapshot {
        PlaybackSnapshot(state: state, item: item, elapsed: elapsed, timestamp: 1000, playbackRate: state == .playing ? rate : 0,
                         rate: rate, duration: item.duration, queue: QueueSummary(identifiers: [item.identifier], index: 0))
    }

    @Test("the chapter is the last one started; before the first start it is the first")
    func chapterAtPosition() {
        #expect(Self.chapters.index(at: 0) == 0)
        #expect(Self.chapters.index(at: 59.99) == 0)
        #expect(Self.chapters.index(at: 60) == 1)
        #expect(Self.chapters.index(at: 1e9) == 2)
        let late = [QueueItem.Chapter(title: "a", startTime: 10), QueueItem.Chapter(title: "b", startTime: 20)]
        #expect(late.index(at: 3) == 0)
        #expect([QueueItem.Chapter]().index(at: 3) == nil)
        #expect(Self.chapters.start(after: 30) == 60)
        #expect(Self.chapters.start(after: 60) == 150)
        #expect(Self.chapters.start(after: 150) == nil)
    }

    @Test("the next boundary comes after the distance divided by the rate; none while paused or after the last")
    func nextBoundary() {
        #expect(Self.snapshot(elapsed: 50).secondsToNextChapter(at: 1000) == 10)
        #expect(Self.snapshot(elapsed: 50).secondsToNextChapter(at: 1004) == 6)
        #expect(Self.snapshot(elapsed: 50, rate: 2).secondsToNextChapter(at: 1000) == 5)
        #expect(Self.snapshot(elapsed: 50, state: .paused).secondsToNextChapter(at: 1000) == nil)
        #expect(Self.snapshot(elapsed: 160).secondsToNextChapter(at: 1000) == nil)
        let plain = QueueItem(identifier: "plain", uri: "file:///plain.ogg", duration: 100)
        #expect(Self.snapshot(elapsed: 5, item: plain).secondsToNextChapter(at: 1000) == nil)
    }

    @Test("now playing names the chapter the audio is in when it goes out; an item without chapters has none of the three keys")
    func documentKeys() {
        let document = NowPlayingInfo(snapshot: Self.snapshot(elapsed: 50), at: 1011).json
        #expect(document["chapterNumber"] == 1 && document["chapterCount"] == 3 && document["chapterTitle"] == "The Crossing")
        // At the snapshot's own time, or paused, the position decides.
        #expect(NowPlayingInfo(snapshot: Self.snapshot(elapsed: 50)).json["chapterTitle"] == "Opening")
        #expect(NowPlayingInfo(snapshot: Self.snapshot(elapsed: 50, state: .paused), at: 2000).json["chapterNumber"] == 0)
        let plain = QueueItem(identifier: "plain", uri: "file:///plain.ogg", duration: 100)
        let none = NowPlayingInfo(snapshot: Self.snapshot(elapsed: 5, item: plain), at: 1000).json
        #expect(none["chapterNumber"] == nil && none["chapterCount"] == nil && none["chapterTitle"] == nil)
    }

    @Test("crossing a boundary is a change worth publishing; time passing within a chapter is not")
    func centerPublishesOnceAtTheBoundary() {
        var center = NowPlayingCenter()
        let snapshot = Self.snapshot(elapsed: 50)
        #expect(center.offer(snapshot: snapshot, at: 1000) != nil)
        #expect(center.offer(snapshot: snapshot, at: 1005) == nil, "still the first chapter")
        #expect(center.offer(snapshot: snapshot, at: 1010.02)?["chapterNumber"] == 1)
        #expect(center.offer(snapshot: snapshot, at: 1050) == nil, "still the second")
    }
}
