import CatalogStore
import ContentTree
import Foundation
import MediaJSON
import MediaNodeTesting
import Testing

/// Chapters of real files, written by the test kit in each format's own way, read by the library scan into a
/// real catalog file.
@Suite("chapters read by the library scan")
struct ChapterScanTests {
    static let chapters = [
        ToneChapter("Opening", frequency: 440, seconds: 2), ToneChapter("The Crossing", frequency: 660, seconds: 3),
        ToneChapter("Landfall", frequency: 880, seconds: 2),
    ]

    /// Scans `music` into a fresh catalog; returns the catalog and the playable items by title, read one by
    /// one (as `contentItem` reads them).
    static func scan(_ music: URL, _ temp: TemporaryCatalog, logs: LogRecorder = LogRecorder())
        async throws -> (CatalogDatabase, [String: ContentItem]) {
        let database = try temp.open()
        let report = await CatalogRefresher(database: database, logger: logs.logger()).refresh(LocalFolderProvider(roots: [music]))
        guard case .updated = report else { throw CatalogParseError("the scan did not update: \(report)") }
        return (database, try await itemsByTitle(database))
    }

    static func itemsByTitle(_ database: CatalogDatabase) async throws -> [String: ContentItem] {
        let library = try await allChildren(database, of: ContentItem.Section.library)
        let songs = try await allChildren(database, of: library[2].identifier)
        var items: [String: ContentItem] = [:]
        for song in songs { items[song.title] = try await database.item(identifier: song.identifier) }
        return items
    }

    @Test("a book's chapters are in the catalog in order with their titles, and a file without any has none",
          arguments: ["mp3", "ogg", "opus", "flac", "m4b"])
    func chaptersOfEachFormat(format: String) async throws {
        let music = try AudioFixtures.makeTemporaryDirectory("chapters-\(format)")
        let temp = try TemporaryCatalog("chapters-\(format)")
        defer {
            temp.remove()
            try? FileManager.default.removeItem(at: music)
        }
        try await AudioFixtures.writeChapteredBook(Self.chapters, named: "book.\(format)", title: "Voyage", in: music)
        try await AudioFixtures.writeTone(ToneTrack(fileName: "plain.\(format == "m4b" ? "m4a" : format)", frequency: 300, seconds: 2, title: "Plain"), in: music)
        let (database, items) = try await Self.scan(music, temp)
        let book = try #require(items["Voyage"])
        let chapters = try #require(book.chapters, "no chapters read from the \(format) file")
        #expect(chapters.map(\.title) == ["Opening", "The Crossing", "Landfall"])
        let starts = chapters.map(\.startTime)
        #expect(starts.count == 3 && zip(starts, [0.0, 2.0, 5.0]).allSatisfy { abs($0 - $1) < 0.002 }, "starts \(starts)")
        #expect(items["Plain"]?.chapters == nil)
        #expect(items["Plain"]?.json(artworkTopic: { $0 })["chapters"] == nil)

        // contentItem's document lists them; a page of the tree does not carry them.
        let document = book.json(artworkTopic: { $0 })
        let listed = try #require(document["chapters"]?.arrayValue)
        try #require(listed.count == 3)
        #expect(listed[1]["title"] == "The Crossing")
        #expect(listed[2]["startTime"]?.numberValue.map { abs($0 - 5) < 0.002 } == true)
        let album = try await allChildren(database, of: try #require(book.containerIdentifier))
        #expect(album.first?.chapters == nil)

        // An unchanged rescan keeps them without reading the file again.
        _ = await CatalogRefresher(database: database).refresh(LocalFolderProvider(roots: [music]))
        #expect(try await Self.itemsByTitle(database)["Voyage"]?.chapters == chapters)
        try database.close()
    }

    @Test("an M4B whose chapters are a QuickTime chapter track (as Apple's audiobooks keep them) has them in the catalog")
    func quickTimeChapterTrack() async throws {
        let music = try AudioFixtures.makeTemporaryDirectory("chapters-quicktime")
        let temp = try TemporaryCatalog("chapters-quicktime")
        defer {
            temp.remove()
            try? FileManager.default.removeItem(at: music)
        }
        try await AudioFixtures.writeChapteredBook(Self.chapters, named: "book.m4b", title: "Voyage", mp4Chapters: .quickTime, in: music)
        let (database, items) = try await Self.scan(music, temp)
        let book = try #require(items["Voyage"], "the book is not in the catalog: \(items.keys)")
        #expect(book.chapters?.map(\.title) == ["Opening", "The Crossing", "Landfall"])
        #expect(book.chapters?.map(\.startTime) == [0, 2, 5])
        #expect(book.duration.map { abs($0 - 7) < 0.2 } == true)
        try database.close()
    }

    @Test("chapters out of order are ignored and chapters past the end are left out, with one log line each; the book still plays")
    func badChapterDataIsIgnored() async throws {
        let music = try AudioFixtures.makeTemporaryDirectory("bad-chapters")
        let temp = try TemporaryCatalog("bad-chapters")
        defer {
            temp.remove()
            try? FileManager.default.removeItem(at: music)
        }
        // 7 s of audio each.
        try await AudioFixtures.writeChapteredBook(
            Self.chapters, named: "shuffled.mp3", title: "Shuffled",
            marks: [ChapterMark("A", start: 0), ChapterMark("B", start: 4), ChapterMark("C", start: 2)], in: music)
        try await AudioFixtures.writeChapteredBook(
            Self.chapters, named: "long.ogg", title: "Overlong",
            marks: [ChapterMark("A", start: 0), ChapterMark("B", start: 3), ChapterMark("C", start: 60), ChapterMark("D", start: 90)],
            in: music)
        let logs = LogRecorder()
        let (database, items) = try await Self.scan(music, temp, logs: logs)

        let shuffled = try #require(items["Shuffled"])
        #expect(shuffled.chapters == nil)
        #expect(shuffled.isPlayable && shuffled.duration.map { abs($0 - 7) < 0.2 } == true)
        let overlong = try #require(items["Overlong"])
        #expect(overlong.chapters?.map(\.title) == ["A", "B"])
        #expect(overlong.isPlayable)

        #expect(logs.lines(containing: "shuffled.mp3", "out of order").count == 1, "\(logs.messages)")
        #expect(logs.lines(containing: "long.ogg", "past the end").count == 1, "\(logs.messages)")
        // Read once, said once: a rescan of unchanged files says nothing more.
        _ = await CatalogRefresher(database: database, logger: logs.logger()).refresh(LocalFolderProvider(roots: [music]))
        #expect(logs.lines(containing: "chapter").count == 2, "\(logs.messages)")
        try database.close()
    }

    @Test("chapter times as Vorbis comments and Podlove write them")
    func playTimes() {
        #expect(FeedChapters.seconds(fromPlayTime: "00:00:00.000") == 0)
        #expect(FeedChapters.seconds(fromPlayTime: "01:02:03.5") == 3723.5)
        #expect(FeedChapters.seconds(fromPlayTime: "2:05") == 125)
        #expect(FeedChapters.seconds(fromPlayTime: "12.25") == 12.25)
        #expect(FeedChapters.seconds(fromPlayTime: "100:00:00") == 360_000)
        for bad in ["", "1:60", "a:00", "1:2:3:4", "1.2.3", "-5", "1:", ":5"] {
            #expect(FeedChapters.seconds(fromPlayTime: bad) == nil, "\(bad)")
        }
    }

    @Test("the check keeps good lists, names blank titles, and refuses unordered or non-numeric starts")
    func validation() {
        let good = [ContentChapter(title: " Intro ", startTime: 0), ContentChapter(title: "", startTime: 10)]
        let checked = ContentChapter.validated(good, duration: 20)
        #expect(checked.chapters == [ContentChapter(title: "Intro", startTime: 0), ContentChapter(title: "Chapter 2", startTime: 10)])
        #expect(checked.problem == nil)
        #expect(ContentChapter.validated([ContentChapter(title: "a", startTime: 5), ContentChapter(title: "b", startTime: 5)], duration: nil).chapters.isEmpty)
        #expect(ContentChapter.validated([ContentChapter(title: "a", startTime: .nan)], duration: nil).problem != nil)
        let past = ContentChapter.validated([ContentChapter(title: "a", startTime: 0), ContentChapter(title: "b", startTime: 30)], duration: 20)
        #expect(past.chapters.map(\.title) == ["a"] && past.problem?.contains("past the end") == true)
        let many = (0..<1_500).map { ContentChapter(title: "c\($0)", startTime: Double($0)) }
        #expect(ContentChapter.validated(many, duration: nil).chapters.count == ContentChapter.maximumCount)
    }
}
