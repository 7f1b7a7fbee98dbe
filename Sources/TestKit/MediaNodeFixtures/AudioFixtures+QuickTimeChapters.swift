import Foundation

extension AudioFixtures {
    /// How an MP4 book keeps its chapters.
    public enum MP4Chapters: Sendable {
        /// The Nero chapter list, `moov/udta/chpl` (what most tools write).
        case nero
        /// A QuickTime chapter track: a text track whose samples are the titles, named by the audio track's
        /// `tref/chap` (what Apple's audiobooks carry).
        case quickTime
    }

    /// Adds a QuickTime chapter track to an MP4 whose movie box comes after its media data (as GStreamer's
    /// mp4mux writes it): the titles as text samples in a media box of their own after the movie box, a
    /// disabled text track timing them (in milliseconds), and a `tref/chap` in the audio track naming it.
    static func addQuickTimeChapters(_ marks: [ChapterMark], length: Double, to url: URL) throws {
        var file = [UInt8](try Data(contentsOf: url))
        func u32(_ bytes: [UInt8], _ at: Int) -> Int { bytes[at..<at + 4].reduce(0) { $0 << 8 | Int($1) } }
        func children(_ bytes: [UInt8], _ range: Range<Int>) -> [(type: String, range: Range<Int>)] {
            var found: [(String, Range<Int>)] = []
            var offset = range.lowerBound
            while offset + 8 <= range.upperBound {
                let size = u32(bytes, offset)
                guard size >= 8, offset + size <= range.upperBound else { break }
                found.append((String(decoding: bytes[offset + 4..<offset + 8], as: UTF8.self), offset..<offset + size))
                offset += size
            }
            return found
        }
        let top = children(file, 0..<file.count)
        guard let movie = top.last, movie.type == "moov", top.contains(where: { $0.type == "mdat" }) else {
            throw AudioFixtureError.toolFailed(command: "addQuickTimeChapters", status: 1, output: "\(url.path): no movie box last")
        }
        let parts = children(file, movie.range.lowerBound + 8..<movie.range.upperBound)
        // The chapter track's id: one above every track's (tkhd version 0: the id at offset 12 of its content).
        var largestID = 0
        for part in parts where part.type == "trak" {
            for box in children(file, part.range.lowerBound + 8..<part.range.upperBound) where box.type == "tkhd" {
                largestID = max(largestID, u32(file, box.range.lowerBound + 8 + 12))
            }
        }
        let chapterID = UInt64(largestID + 1)
        let samples = marks.map { mark -> [UInt8] in
            let title = Array(mark.title.utf8)
            return bigEndian(UInt64(title.count), bytes: 2) + title
        }
        let durations = marks.indices.map { index -> UInt64 in
            let end = index + 1 < marks.count ? marks[index + 1].start : length
            return UInt64(max(0, (end - marks[index].start) * 1000).rounded())
        }
        func u32s(_ values: [UInt64]) -> [UInt8] { values.flatMap { bigEndian($0, bytes: 4) } }
        func chapterTrack(sampleOffset: UInt64) -> [UInt8] {
            let total = durations.reduce(0, +)
            let header = box("tkhd", u32s([0, 0, 0, chapterID, 0, total, 0, 0]) + [0, 0, 0, 0, 0, 0, 0, 0]
                + u32s([0x10000, 0, 0, 0, 0x10000, 0, 0, 0, 0x4000_0000, 0, 0]))
            let mediaHeader = box("mdhd", u32s([0, 0, 0, 1000, total]) + [0x55, 0xC4, 0, 0])
            let handler = box("hdlr", u32s([0, 0]) + Array("text".utf8) + u32s([0, 0, 0]) + [0])
            let description = box("stsd", u32s([0, 1]) + box("text", [0, 0, 0, 0, 0, 0, 0, 1]))
            let times = box("stts", u32s([0, UInt64(marks.count)]) + durations.flatMap { u32s([1, $0]) })
            let runs = box("stsc", u32s([0, 1, 1, UInt64(marks.count), 1]))
            let sizes = box("stsz", u32s([0, 0, UInt64(marks.count)] + samples.map { UInt64($0.count) }))
            let chunks = box("stco", u32s([0, 1, sampleOffset]))
            let table = box("stbl", description + times + runs + sizes + chunks)
            let media = box("mdia", mediaHeader + handler + box("minf", box("nmhd", u32s([0])) + table))
            return box("trak", header + media)
        }
        var content: [UInt8] = []
        var namedChapters = false
        for part in parts {
            if part.type == "trak", !namedChapters {
                // The first track is the audio: it names the chapter track.
                namedChapters = true
                let inner = Array(file[part.range.lowerBound + 8..<part.range.upperBound])
                content += box("trak", inner + box("tref", box("chap", bigEndian(chapterID, bytes: 4))))
            } else {
                content += Array(file[part.range])
            }
        }
        // The samples follow the new movie box, in a media box of their own; the track's size does not
        // depend on where they are, so their place is known before it is written.
        let movieSize = 8 + content.count + chapterTrack(sampleOffset: 0).count
        let sampleOffset = UInt64(movie.range.lowerBound + movieSize + 8)
        let newMovie = box("moov", content + chapterTrack(sampleOffset: sampleOffset))
        file.replaceSubrange(movie.range, with: newMovie + box("mdat", samples.flatMap { $0 }))
        try Data(file).write(to: url)
    }
}
