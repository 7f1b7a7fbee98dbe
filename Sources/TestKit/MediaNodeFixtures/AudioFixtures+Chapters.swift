import Foundation

/// One chapter of a generated book: a tone of its own, so a test can tell from the rendered audio which
/// chapter plays.
public struct ToneChapter: Sendable, Hashable {
    public var title: String
    public var frequency: Int
    public var seconds: Double

    public init(_ title: String, frequency: Int, seconds: Double) {
        self.title = title
        self.frequency = frequency
        self.seconds = seconds
    }
}

/// A chapter mark as written into a file: a title and a start in seconds, whatever the audio holds (so a
/// test can write marks out of order, or past the end).
public struct ChapterMark: Sendable, Hashable {
    public var title: String
    public var start: Double

    public init(_ title: String, start: Double) {
        self.title = title
        self.start = start
    }
}

extension AudioFixtures {
    /// A book of consecutive tones, one per chapter, with its chapters written the way its format keeps them:
    /// Vorbis comments `CHAPTERnnn`/`CHAPTERnnnNAME` (.ogg, .opus, .flac, through GStreamer's encoders),
    /// ID3v2 `CTOC` and `CHAP` frames (.mp3, the tag written here byte by byte: no tool on Debian writes them),
    /// or a Nero chapter list (`moov/udta/chpl`) or QuickTime chapter track (.m4b and .m4a, added here to
    /// GStreamer's MP4; see `mp4Chapters`).
    /// - Parameter marks: the chapter marks to write instead of the chapters' own (for bad data); nil: each
    ///   chapter starts where its tone does.
    @discardableResult
    public static func writeChapteredBook(
        _ chapters: [ToneChapter], named fileName: String, title: String = "Book", artist: String = "Test Author",
        album: String = "Test Book", marks: [ChapterMark]? = nil, mp4Chapters: MP4Chapters = .nero, in directory: URL
    ) async throws -> URL {
        let url = directory.appendingPathComponent(fileName)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var starts: [ChapterMark] = []
        var clock = 0.0
        for chapter in chapters {
            starts.append(ChapterMark(chapter.title, start: clock))
            clock += chapter.seconds
        }
        let written = marks ?? starts
        let raw = directory.appendingPathComponent(".\(fileName).raw")
        try writeRawTones(chapters.map { ($0.frequency, $0.seconds) }, to: raw)
        defer { try? FileManager.default.removeItem(at: raw) }

        var track = ToneTrack(fileName: fileName, frequency: 0, seconds: clock, title: title, artist: artist, album: album)
        let format = url.pathExtension.lowercased()
        let encoder: [String]
        switch format {
        case "flac": encoder = ["flacenc"]
        case "opus": encoder = ["audioresample", "!", "audio/x-raw,rate=48000", "!", "opusenc", "!", "oggmux"]
        // With a Xing header, as real encoders write: without it a VBR file's length is only guessed.
        case "mp3": encoder = ["lamemp3enc", "!", "xingmux"]
        case "m4a", "m4b": encoder = ["avenc_aac", "!", "mp4mux"]
        default: encoder = ["vorbisenc", "!", "oggmux"]
        }
        if ["ogg", "oga", "opus", "flac"].contains(format), !written.isEmpty {
            track.extraTags = [vorbisChapterComments(written)]
        }
        try await run("gst-launch-1.0", [
            "-q", "filesrc", "location=\(raw.path)", "!", "rawaudioparse", "format=pcm", "pcm-format=s16le",
            "sample-rate=\(rawRate)", "num-channels=2", "!", "taginject", "tags=\"\(tagList(for: track))\"", "!",
            "audioconvert", "!",
        ] + encoder + ["!", "filesink", "location=\(url.path)"])
        switch format {
        case "mp3":
            var file = ID3ChapterTag(title: title, artist: artist, album: album, chapters: written, length: clock).bytes
            file.append(try Data(contentsOf: url))
            try file.write(to: url)
        case "m4a", "m4b":
            switch mp4Chapters {
            case .nero: try addNeroChapters(written, to: url)
            case .quickTime: try addQuickTimeChapters(written, length: clock, to: url)
            }
        default:
            break
        }
        return url
    }

    /// GStreamer's `extended-comment` tag, which its Vorbis comment writers write as free `KEY=value` lines.
    static func vorbisChapterComments(_ marks: [ChapterMark]) -> String {
        var comments: [String] = []
        for (index, mark) in marks.enumerated() {
            let number = String(format: "%03d", index + 1)
            comments.append("CHAPTER\(number)=\(playTime(mark.start))")
            comments.append("CHAPTER\(number)NAME=\(mark.title)")
        }
        let quoted = comments.map { "(string)\\\"" + $0.replacingOccurrences(of: "\"", with: "'") + "\\\"" }
        return "extended-comment={" + quoted.joined(separator: ",") + "}"
    }

    /// "HH:MM:SS.mmm".
    public static func playTime(_ seconds: Double) -> String {
        let millis = Int((seconds * 1000).rounded())
        return String(format: "%02d:%02d:%02d.%03d", millis / 3_600_000, millis / 60_000 % 60, millis / 1000 % 60, millis % 1000)
    }

    /// Adds a Nero chapter list (`udta/chpl`: starts in 100 ns units, titles of up to 255 bytes) at the end of
    /// the movie box of an MP4 whose movie box comes after its media data, as GStreamer's mp4mux writes it,
    /// so no sample offset moves.
    static func addNeroChapters(_ marks: [ChapterMark], to url: URL) throws {
        var file = [UInt8](try Data(contentsOf: url))
        func u32(_ at: Int) -> Int { file[at..<at + 4].reduce(0) { $0 << 8 | Int($1) } }
        var offset = 0, movie: Range<Int>?, sawMedia = false
        while offset + 8 <= file.count {
            let size = u32(offset)
            let type = String(decoding: file[offset + 4..<offset + 8], as: UTF8.self)
            guard size >= 8, offset + size <= file.count else { break }
            if type == "mdat" { sawMedia = true }
            if type == "moov" { movie = offset..<offset + size }
            offset += size
        }
        guard let movie, sawMedia, movie.upperBound == file.count else {
            throw AudioFixtureError.toolFailed(command: "addNeroChapters", status: 1, output: "\(url.path): no movie box after the media")
        }
        var list: [UInt8] = [0x01, 0, 0, 0, 0, 0, 0, 0, UInt8(marks.count)]
        for mark in marks {
            list += bigEndian(UInt64((mark.start * 10_000_000).rounded()), bytes: 8)
            let title = Array(mark.title.utf8.prefix(255))
            list.append(UInt8(title.count))
            list += title
        }
        let chapters = box("chpl", list)
        let user = box("udta", chapters)
        file.replaceSubrange(movie.lowerBound..<movie.lowerBound + 4, with: bigEndian(UInt64(movie.count + user.count), bytes: 4))
        file += user
        try Data(file).write(to: url)
    }

    static func box(_ type: String, _ content: [UInt8]) -> [UInt8] {
        bigEndian(UInt64(content.count + 8), bytes: 4) + Array(type.utf8) + content
    }

    static func bigEndian(_ value: UInt64, bytes: Int) -> [UInt8] {
        (0..<bytes).reversed().map { UInt8(truncatingIfNeeded: value >> (8 * UInt64($0))) }
    }
}

/// An ID3v2.4 tag with a title, artist and album, and a top-level ordered table of contents (`CTOC`) over one
/// `CHAP` frame per chapter mark, each with its title in an embedded `TIT2`. Each chapter ends where the next
/// begins, the last at `length`.
public struct ID3ChapterTag: Sendable {
    public var title: String
    public var artist: String
    public var album: String
    public var chapters: [ChapterMark]
    /// Seconds.
    public var length: Double

    public init(title: String, artist: String, album: String, chapters: [ChapterMark], length: Double) {
        self.title = title
        self.artist = artist
        self.album = album
        self.chapters = chapters
        self.length = length
    }

    public var bytes: Data {
        var frames: [UInt8] = []
        frames += Self.textFrame("TIT2", title) + Self.textFrame("TPE1", artist) + Self.textFrame("TALB", album)
        if !chapters.isEmpty {
            var table: [UInt8] = Array("toc".utf8) + [0, 0x03, UInt8(chapters.count)]
            for index in chapters.indices { table += Array("chp\(index)".utf8) + [0] }
            frames += Self.frame("CTOC", table)
        }
        for (index, mark) in chapters.enumerated() {
            let end = index + 1 < chapters.count ? chapters[index + 1].start : length
            var chapter: [UInt8] = Array("chp\(index)".utf8) + [0]
            chapter += Self.u32(UInt32(max(0, mark.start * 1000).rounded()))
            chapter += Self.u32(UInt32(max(0, end * 1000).rounded()))
            chapter += [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]
            chapter += Self.textFrame("TIT2", mark.title)
            frames += Self.frame("CHAP", chapter)
        }
        return Data(Array("ID3".utf8) + [4, 0, 0] + Self.syncsafe(frames.count) + frames)
    }

    static func textFrame(_ id: String, _ text: String) -> [UInt8] { frame(id, [3] + Array(text.utf8)) }

    static func frame(_ id: String, _ body: [UInt8]) -> [UInt8] { Array(id.utf8) + syncsafe(body.count) + [0, 0] + body }

    static func syncsafe(_ value: Int) -> [UInt8] {
        [UInt8(value >> 21 & 0x7F), UInt8(value >> 14 & 0x7F), UInt8(value >> 7 & 0x7F), UInt8(value & 0x7F)]
    }

    static func u32(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
    }
}
