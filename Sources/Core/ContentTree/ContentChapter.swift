import MediaJSON

/// One chapter of a playable item (an audiobook's, a long podcast's): where it starts and what it is called.
public struct ContentChapter: Sendable, Hashable, Codable {
    public var title: String
    /// Seconds from the start of the item.
    public var startTime: Double

    public init(title: String, startTime: Double) {
        self.title = title
        self.startTime = startTime
    }
}

extension ContentChapter {
    /// More chapters than any book or episode has (long audiobooks have a few hundred): the rest of a longer
    /// list is left out, so now playing and `contentItem` stay small.
    public static let maximumCount = 1_000
    /// Longer titles are cut here: a head unit shows a line, not a page.
    public static let maximumTitleLength = 200

    /// What can be kept of chapter data as a file or feed gave it, and what was wrong with it (for one log
    /// line; the item itself is never refused for its chapters).
    ///
    /// - Start times that are not numbers, negative or not strictly increasing in the list's own order: the
    ///   list is dropped, for which chapter is wrong cannot be told.
    /// - Chapters that start at or past the end of the item (when its length is known): those are dropped.
    /// - Blank titles become "Chapter n" (from 1); long ones are cut; past `maximumCount` the list is cut.
    public static func validated(_ chapters: [ContentChapter], duration: Double?) -> (chapters: [ContentChapter], problem: String?) {
        guard !chapters.isEmpty else { return ([], nil) }
        for (index, chapter) in chapters.enumerated() {
            guard chapter.startTime.isFinite, chapter.startTime >= 0 else {
                return ([], "chapter \(index + 1) has no valid start time (\(chapter.startTime)); chapters ignored")
            }
            if index > 0, chapter.startTime <= chapters[index - 1].startTime {
                return ([], "chapter \(index + 1) starts at \(seconds(chapter.startTime)), not after chapter \(index) "
                    + "at \(seconds(chapters[index - 1].startTime)): start times out of order; chapters ignored")
            }
        }
        var kept = chapters
        var problems: [String] = []
        if let duration, duration > 0, let past = kept.firstIndex(where: { $0.startTime >= duration }) {
            problems.append("\(kept.count - past) of \(kept.count) chapters start at or past the end "
                + "(chapter \(past + 1) at \(seconds(kept[past].startTime)), the item is \(seconds(duration))); those are ignored")
            kept.removeSubrange(past...)
        }
        if kept.count > maximumCount {
            problems.append("\(kept.count) chapters; only the first \(maximumCount) are kept")
            kept.removeSubrange(maximumCount...)
        }
        for index in kept.indices {
            let title = kept[index].title.trimmingWhitespaceAndControls
            kept[index].title = title.isEmpty ? "Chapter \(index + 1)" : String(title.prefix(maximumTitleLength))
        }
        return (kept, problems.isEmpty ? nil : problems.joined(separator: "; "))
    }

    private static func seconds(_ value: Double) -> String {
        let millis = (value * 1000).rounded() / 1000
        return "\(millis) s"
    }
}

extension [ContentChapter] {
    /// `[{"startTime":0,"title":"Opening"},...]`: how the catalog keeps a list, written straight into bytes
    /// (Foundation's JSONEncoder cost more than reading the file's tags).
    public var storedJSON: String {
        var writer = JSONByteWriter(capacity: 2 + 40 * count)
        writer.raw("[")
        for (index, chapter) in enumerated() {
            writer.raw(index == 0 ? "{\"startTime\":" : ",{\"startTime\":")
            writer.number(chapter.startTime)
            writer.raw(",\"title\":")
            writer.string(chapter.title)
            writer.raw("}")
        }
        writer.raw("]")
        return String(decoding: writer.bytes, as: UTF8.self)
    }
}

extension String {
    /// Without leading and trailing white space and control characters (a tag's NUL padding, a stray CR).
    var trimmingWhitespaceAndControls: String {
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { !Self.isBlank($0) }),
              let last = scalars.lastIndex(where: { !Self.isBlank($0) })
        else { return "" }
        return String(scalars[first...last])
    }

    private static func isBlank(_ scalar: Unicode.Scalar) -> Bool {
        scalar.properties.isWhitespace || scalar.properties.generalCategory == .control
    }
}
