import Foundation
import MediaJSON
import MediaNodeTesting
import Testing

/// Chapters on a real node: a book whose chapters are tones of their own (written into a real MP3 as ID3v2
/// CHAP frames), scanned into a real catalog file, played by real GStreamer into a WAV, watched through a real
/// broker. What now playing says is checked against what is heard.
@Suite("Chapters in now playing and skipToChapter, heard", .ownThreads)
struct ChapterPlaybackTests {
    static let chapters = [
        ToneChapter("Opening", frequency: 440, seconds: 4), ToneChapter("The Crossing", frequency: 660, seconds: 4),
        ToneChapter("Landfall", frequency: 880, seconds: 4),
    ]

    /// A library of the book (first in path order, so the node's prepared queue starts with it) and a plain
    /// track after it.
    static func library(_ label: String, format: String = "mp3") async throws -> ToneLibrary {
        let library = try await ToneLibrary(label, tones: [])
        try await AudioFixtures.writeChapteredBook(chapters, named: "01 book.\(format)", title: "Voyage", in: library.library)
        try await AudioFixtures.writeTone(ToneTrack(fileName: "02 plain.ogg", frequency: 1320, seconds: 4, title: "Plain"),
                                          in: library.library)
        return library
    }

    /// Now-playing documents received so far.
    static func documents(_ node: RunningNode) async -> [JSONValue] {
        await node.client.messages(on: node.topics.nowPlaying).compactMap { try? JSONValue(parsing: $0.payload) }
    }

    @Test("each chapter boundary publishes now playing once, within 0.5 s of its tone being heard, and nothing between")
    func boundariesMatchWhatIsHeard() async throws {
        let library = try await Self.library("chapters-heard")
        defer { library.remove() }
        let node = try await library.start()
        // Prepared paused: the book is the current item and its chapters are known already.
        let paused = try await node.waitUntil(node.topics.nowPlaying, "the book paused") { $0["title"] == "Voyage" }
        #expect(paused["chapterNumber"] == 0 && paused["chapterCount"] == 3 && paused["chapterTitle"] == "Opening")
        try await node.waitUntil(node.topics.commands, "skipToChapter enabled") { $0["skipToChapter"]?["enabled"] == true }

        #expect(try await node.status("play") == "success")
        for (number, chapter) in Self.chapters.enumerated().dropFirst() {
            let start = Self.chapters[..<number].reduce(0) { $0 + $1.seconds }
            let topic = node.topics.nowPlaying
            let message = try await node.client.first(timeout: .seconds(15)) { message in
                message.topic == topic && (try? JSONValue(parsing: message.payload))?["chapterNumber"] == .number(Double(number))
            }
            // How much had been heard when the message arrived: the WAV now, less what it grew (in real time)
            // since the message reached this process, so a test task resumed late on a loaded machine reads true.
            let (rendered, now) = (node.renderedSecondsBySize(), ContinuousClock.now)
            let waited = now - message.receivedAt
            let heard = rendered - Double(waited.components.seconds) - Double(waited.components.attoseconds) / 1e18
            let document = try JSONValue(parsing: message.payload)
            #expect(document["chapterCount"] == 3 && document["chapterTitle"] == .string(chapter.title))
            #expect(document["state"] == "playing")
            #expect(heard - start > -0.1 && heard - start < 0.5,
                    "chapter \(number) announced with \(heard) s heard; its tone starts at \(start) s; the message says \(document.jsonString)")
            try await sleep(0.3)
            let file = try node.wav()
            #expect(isNear(file.dominantFrequency(from: start + 0.1, length: 0.3), Double(chapter.frequency)),
                    "chapter \(number)'s tone is not heard after \(start) s")
            #expect(isNear(file.dominantFrequency(from: start - 0.4, length: 0.3), Double(Self.chapters[number - 1].frequency)))
        }
        // Between two boundaries steady playback publishes nothing: chapter 1 (4 s) was shown by one message.
        let documents = await Self.documents(node)
        let middle = documents.filter { $0["chapterNumber"] == 1 }
        #expect(middle.count == 1, "now playing during chapter 1: \(middle.map(\.jsonString))")
        print("now playing at the boundary into chapter 1: \(middle.first?.jsonString ?? "none")")
        await node.stop()
    }

    @Test("skipToChapter plays from the chapter's start, heard within 0.5 s; a bad number or an item without chapters is refused")
    func skipToChapter() async throws {
        let library = try await Self.library("chapters-skip", format: "ogg")
        defer { library.remove() }
        let node = try await library.start()
        _ = try await node.waitUntil(node.topics.nowPlaying, "the book") { $0["chapterCount"] == 3 }
        // contentItem lists the chapters.
        let item = try await node.send("contentItem", #""identifier":"\#(library.identifier(of: library.library.appendingPathComponent("01 book.ogg")))""#)
        #expect(item["data"]?["chapters"]?[1]?["title"] == "The Crossing", "\(item.jsonString)")
        #expect(item["data"]?["chapters"]?[2]?["startTime"] == 8)

        // From paused: it plays, from the chapter's start.
        let before = node.renderedSecondsBySize()
        let reply = try await node.send("skipToChapter", #""chapterNumber":2"#)
        #expect(reply["status"] == "success", "\(reply.jsonString)")
        let playing = try await node.waitUntil(node.topics.nowPlaying, "chapter 2 playing") {
            $0["state"] == "playing" && $0["chapterNumber"] == 2 && $0["playbackRate"] == 1
        }
        #expect(playing["chapterTitle"] == "Landfall")
        #expect((playing["elapsedPlaybackTime"]?.numberValue ?? 0) >= 8)
        try await sleep(0.8)
        let heard = try node.wav()
        let landed = stride(from: before, to: heard.duration - 0.1, by: 0.05)
            .first { isNear(heard.dominantFrequency(from: $0, length: 0.1), 880) }
        #expect(landed.map { $0 - before < 0.5 } == true, "880 Hz heard from \(landed ?? -1) s; the command came at \(before) s")

        // Back to chapter 1 while playing.
        let sent = node.renderedSecondsBySize()
        #expect(try await node.status("skipToChapter", #""chapterNumber":1"#) == "success")
        try await sleep(0.8)
        let after = try node.wav()
        let back = stride(from: sent, to: after.duration - 0.1, by: 0.05).first { isNear(after.dominantFrequency(from: $0, length: 0.1), 660) }
        #expect(back.map { $0 - sent < 0.5 } == true, "660 Hz heard from \(back ?? -1) s; the command came at \(sent) s")
        #expect(try await node.waitUntil(node.topics.nowPlaying, "chapter 1") { $0["chapterNumber"] == 1 }["chapterTitle"] == "The Crossing")

        // Refusals.
        let outOfRange = try await node.send("skipToChapter", #""chapterNumber":3"#)
        #expect(outOfRange["status"] == "commandFailed" && outOfRange["message"]?.stringValue?.contains("0 to 2") == true,
                "\(outOfRange.jsonString)")
        #expect(try await node.status("skipToChapter", #""chapterNumber":-1"#) == "commandFailed")
        #expect(try await node.status("skipToChapter", #""chapterNumber":"two""#) == "commandFailed")
        #expect(try await node.status("skipToChapter") == "commandFailed")

        // The next item has no chapters: none of the three keys, the command disabled and refused.
        #expect(try await node.status("nextTrack") == "success")
        let plain = try await node.waitUntil(node.topics.nowPlaying, "the plain track") { $0["title"] == "Plain" }
        #expect(plain["chapterNumber"] == nil && plain["chapterCount"] == nil && plain["chapterTitle"] == nil, "\(plain.jsonString)")
        _ = try await node.waitUntil(node.topics.commands, "skipToChapter disabled") { $0["skipToChapter"]?["enabled"] == false }
        let refused = try await node.send("skipToChapter", #""chapterNumber":0"#)
        #expect(refused["status"] == "commandFailed", "\(refused.jsonString)")
        await node.stop()
    }
}
