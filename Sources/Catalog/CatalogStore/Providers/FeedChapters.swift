import ContentTree
import Foundation

/// Chapters as feeds give them: Podlove Simple Chapters inline (`<psc:chapter start="00:01:02.500"
/// title="..."/>`) and the Podcasting 2.0 JSON document a `<podcast:chapters>` URL names.
public enum FeedChapters {
    /// A normal play time as Podlove and Vorbis comments write it: "HH:MM:SS.mmm", "MM:SS", "SS.mmm" (hours
    /// may have any number of digits, the fraction any number of places); nil when it is not one.
    public static func seconds(fromPlayTime text: String) -> Double? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty, trimmed.count <= 32 else { return nil }
        let parts = trimmed.split(separator: ":", omittingEmptySubsequences: false)
        guard (1...3).contains(parts.count) else { return nil }
        var total = 0.0
        for (index, part) in parts.enumerated() {
            let isLast = index == parts.count - 1
            let pieces = part.split(separator: ".", omittingEmptySubsequences: false)
            guard (1...(isLast ? 2 : 1)).contains(pieces.count),
                  pieces.allSatisfy({ !$0.isEmpty && $0.allSatisfy(\.isASCIIDigit) }),
                  let whole = Double(pieces[0])
            else { return nil }
            // Minutes and seconds after the first field stay below 60.
            if index > 0, whole >= 60 { return nil }
            total = total * 60 + whole
            if pieces.count == 2, let fraction = Double("0." + pieces[1]) { total += fraction }
        }
        return total
    }

    /// The chapters of Podlove Simple Chapters (`start`, `title` per chapter), unchecked; an unreadable start
    /// is NaN, so the check names it.
    static func podlove(_ entries: [[String: String]]) -> [ContentChapter] {
        entries.map { entry in
            ContentChapter(
                title: HTMLText.plain(entry["title"] ?? "", stripTags: false),
                startTime: entry["start"].flatMap(seconds(fromPlayTime:)) ?? .nan)
        }
    }

    /// The chapters of a Podcasting 2.0 JSON chapters document, in its order; those marked `"toc": false`
    /// (pictures and links meant to change during a chapter) are not part of the table and are left out.
    /// Throws when the bytes are not such a document.
    public static func podcastJSON(_ data: Data) throws -> [ContentChapter] {
        guard (try? JSONSerialization.jsonObject(with: data, options: [])) != nil else {
            throw CatalogParseError("the chapters document is not JSON")
        }
        guard let document = try? JSONDecoder().decode(PodcastChaptersDocument.self, from: data) else {
            throw CatalogParseError("the chapters document has no \"chapters\" list of objects")
        }
        var chapters: [ContentChapter] = []
        for (index, entry) in document.chapters.enumerated() where entry.toc != false {
            guard let start = entry.startTime else {
                throw CatalogParseError("chapter \(index + 1) of the chapters document has no numeric startTime")
            }
            chapters.append(ContentChapter(title: entry.title ?? "", startTime: start))
        }
        return chapters
    }
}

/// The part of a JSON chapters document the node reads; a field of the wrong type reads as absent.
private struct PodcastChaptersDocument: Decodable {
    struct Entry: Decodable {
        var startTime: Double?
        var title: String?
        var toc: Bool?

        enum Key: String, CodingKey { case startTime, title, toc }

        init(from decoder: any Decoder) throws {
            let fields = try decoder.container(keyedBy: Key.self)
            startTime = try? fields.decode(Double.self, forKey: .startTime)
            title = try? fields.decode(String.self, forKey: .title)
            toc = try? fields.decode(Bool.self, forKey: .toc)
        }
    }

    var chapters: [Entry]
}

extension Character {
    fileprivate var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}
