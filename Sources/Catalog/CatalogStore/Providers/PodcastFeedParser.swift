import ContentTree
import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif

/// Podcast RSS 2.0 with the itunes: namespace: the channel becomes a container under Podcasts (showing
/// progress), its episodes items newest first. Tolerant of what real feeds do: CDATA, HTML in text,
/// missing fields, relative links, durations in any of the itunes forms.
public struct PodcastFeedParser: CatalogParser {
    /// More episodes than any real feed carries (the longest-running shows have a few thousand): a feed
    /// over it is broken or hostile, and importing it would cost the vehicle minutes and gigabytes.
    public static let maximumItems = 50_000

    public init() {}

    public func parse(_ data: Data, baseURL: URL?, source: CatalogSource) throws -> CatalogSnapshot {
        let reader = RSSReader()
        let parser = XMLParser(data: data)
        parser.delegate = reader
        parser.shouldResolveExternalEntities = false
        let parsed = parser.parse()
        if reader.tooManyItems {
            throw CatalogParseError("podcast feed has more than \(Self.maximumItems) items; refused")
        }
        guard parsed else {
            let detail = parser.parserError.map { "\($0)" } ?? "unknown error"
            throw CatalogParseError("podcast feed is not well-formed XML (line \(parser.lineNumber)): \(detail)")
        }
        guard reader.sawChannel else { throw CatalogParseError("not an RSS feed: no <channel>") }
        // libxml2 may report success on a cut-off document; a feed that never closes its channel is partial.
        guard reader.closedChannel else { throw CatalogParseError("podcast feed is truncated: <channel> never closes") }
        return snapshot(of: reader, baseURL: baseURL, source: source)
    }

    func snapshot(of feed: RSSReader, baseURL: URL?, source: CatalogSource) -> CatalogSnapshot {
        let channel = feed.channel
        let base = baseURL ?? channel["link"].flatMap { URL(string: $0) }
        let feedIdentifier = StableIdentifier.make("feed", key: source.identifier)
        let title = HTMLText.plain(channel["title"] ?? "", stripTags: false).nonEmpty ?? source.location
        let channelArtwork = (channel["itunes:image@href"] ?? channel["image/url"])
            .flatMap { URLResolver.resolve($0, against: base) }
        let channelExplicit = Self.explicit(channel["itunes:explicit"]) ?? false
        let author = channel["itunes:author"].map { HTMLText.plain($0) }?.nonEmpty

        var snapshot = CatalogSnapshot(title: title)
        snapshot.add(ContentItem(
            identifier: feedIdentifier, title: title, subtitle: author, artworkURL: channelArtwork,
            isContainer: true, isExplicitContent: channelExplicit, displaysPlaybackProgress: true, artist: author,
            summary: (channel["description"] ?? channel["itunes:summary"]).map { HTMLText.plain($0) }?.nonEmpty))

        var episodes: [(date: Date?, order: Int, item: ContentItem)] = []
        var problems: [String] = []
        var seen = Set<String>()
        for (order, entry) in feed.items.enumerated() {
            guard let enclosure = entry["enclosure@url"].flatMap({ URLResolver.resolve($0, against: base) }) else {
                continue  // Nothing to play.
            }
            let key = entry["guid"]?.trimmingCharacters(in: .whitespacesAndNewlines).nonEmpty ?? enclosure
            let identifier = StableIdentifier.make("episode", key: source.identifier + "\n" + key)
            guard seen.insert(identifier).inserted else { continue }
            let date = entry["pubDate"].flatMap(RFC822Date.parse)
            let duration = entry["itunes:duration"].flatMap(Self.duration)
            let episodeTitle = HTMLText.plain(entry["title"] ?? entry["itunes:title"] ?? "", stripTags: false).nonEmpty
                ?? date.map(RFC822Date.day) ?? "Episode"
            let notes = (entry["content:encoded"] ?? entry["description"] ?? entry["itunes:summary"])
                .map { HTMLText.plain($0) }?.nonEmpty
            var item = ContentItem(
                identifier: identifier, title: episodeTitle,
                subtitle: [date.map(RFC822Date.day), duration.map(Self.formatted)].compactMap { $0 }
                    .joined(separator: " · ").nonEmpty,
                artworkURL: entry["itunes:image@href"].flatMap { URLResolver.resolve($0, against: base) }
                    ?? channelArtwork,
                isPlayable: true, isExplicitContent: Self.explicit(entry["itunes:explicit"]) ?? channelExplicit,
                uri: enclosure, artist: entry["itunes:author"].map { HTMLText.plain($0) }?.nonEmpty ?? author,
                albumTitle: title, duration: duration,
                trackNumber: entry["itunes:episode"].flatMap { Int($0.trimmingCharacters(in: .whitespaces)) },
                discNumber: entry["itunes:season"].flatMap { Int($0.trimmingCharacters(in: .whitespaces)) },
                genre: "Podcast", releaseDate: date.map(RFC822Date.day), summary: notes,
                containerIdentifier: feedIdentifier)
            Self.attachChapters(to: &item, entry: entry, podlove: feed.podloveChapters[order], base: base, problems: &problems)
            episodes.append((date, order, item))
        }
        // Newest first; undated episodes keep feed order after the dated ones.
        episodes.sort { lhs, rhs in
            switch (lhs.date, rhs.date) {
            case let (left?, right?): left != right ? left > right : lhs.order < rhs.order
            case (.some, nil): true
            case (nil, .some): false
            case (nil, nil): lhs.order < rhs.order
            }
        }
        for episode in episodes { snapshot.add(episode.item, under: feedIdentifier) }
        snapshot.problems = problems
        return snapshot
    }

    /// An episode's chapters: Podlove Simple Chapters inline when it has them (no fetch needed), else the
    /// Podcasting 2.0 JSON document its `podcast:chapters` names, fetched by the provider with the feed.
    static func attachChapters(
        to item: inout ContentItem, entry: [String: String], podlove: [[String: String]]?, base: URL?,
        problems: inout [String]
    ) {
        if let podlove, !podlove.isEmpty {
            let checked = ContentChapter.validated(FeedChapters.podlove(podlove), duration: item.duration)
            item.chapters = checked.chapters.isEmpty ? nil : checked.chapters
            if let problem = checked.problem { problems.append("episode \"\(item.title)\": psc:chapters: \(problem)") }
            return
        }
        // The JSON format only: the tag may also name other formats (e.g. text/srt) the node does not read.
        let type = entry["podcast:chapters@type"]?.lowercased() ?? "application/json+chapters"
        guard type.contains("json"), let url = entry["podcast:chapters@url"].flatMap({ URLResolver.resolve($0, against: base) })
        else { return }
        item.chaptersURL = url
    }

    /// itunes:duration as seconds: "3600", "59:59", "1:02:03", with optional fractions; nil if unreadable.
    public static func duration(_ text: String) -> Double? {
        let parts = text.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: ":", omittingEmptySubsequences: false)
        guard (1...3).contains(parts.count) else { return nil }
        var seconds = 0.0
        for part in parts {
            guard let value = Double(part), value >= 0 else { return nil }
            seconds = seconds * 60 + value
        }
        return seconds > 0 ? seconds : nil
    }

    static func explicit(_ text: String?) -> Bool? {
        switch text?.trimmingCharacters(in: .whitespacesAndNewlines).lowercased() {
        case "yes", "true", "explicit": true
        case "no", "false", "clean": false
        default: nil
        }
    }

    static func formatted(_ seconds: Double) -> String {
        let minutes = Int((seconds / 60).rounded())
        return minutes >= 60 ? "\(minutes / 60) h \(minutes % 60) min" : "\(max(1, minutes)) min"
    }
}

/// Collects the channel's and each item's text and attributes as flat "path" keys: `title`, `image/url`,
/// `enclosure@url`, `itunes:image@href`. First value wins, as feeds sometimes repeat elements.
final class RSSReader: NSObject, XMLParserDelegate {
    private(set) var channel: [String: String] = [:]
    private(set) var items: [[String: String]] = []
    private(set) var sawChannel = false
    private(set) var closedChannel = false
    private(set) var tooManyItems = false
    /// Each item's Podlove Simple Chapters (`psc:chapter` attributes in order), by the item's index.
    private(set) var podloveChapters: [Int: [[String: String]]] = [:]
    private var stack: [String] = []
    private var text = ""
    private var current: [String: String]?

    func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
                attributes: [String: String] = [:]) {
        stack.append(name)
        text = ""
        if name == "channel" { sawChannel = true }
        if name == "item" { current = [:] }
        if name == "psc:chapter", current != nil, podloveChapters[items.count, default: []].count < ContentChapter.maximumCount * 4 {
            podloveChapters[items.count, default: []].append(attributes)
        }
        guard let key = key(for: stack) else { return }
        for (attribute, value) in attributes { record("\(key)@\(attribute)", value) }
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) { text += string }

    func parser(_ parser: XMLParser, foundCDATA block: Data) { text += String(decoding: block, as: UTF8.self) }

    func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
        if name == "channel" { closedChannel = true }
        if name == "item", let item = current {
            items.append(item)
            current = nil
            if items.count > PodcastFeedParser.maximumItems {
                tooManyItems = true
                parser.abortParsing()
            }
        } else if let key = key(for: stack) {
            let value = text.trimmingCharacters(in: .whitespacesAndNewlines)
            if !value.isEmpty { record(key, value) }
        }
        stack.removeLast()
        text = ""
    }

    /// The element path below the channel or the current item, or nil outside them.
    private func key(for path: [String]) -> String? {
        if let itemIndex = path.lastIndex(of: "item"), path.count > itemIndex + 1 {
            return path[(itemIndex + 1)...].joined(separator: "/")
        }
        if let channelIndex = path.firstIndex(of: "channel"), path.count > channelIndex + 1, current == nil {
            return path[(channelIndex + 1)...].joined(separator: "/")
        }
        return nil
    }

    private func record(_ key: String, _ value: String) {
        if current != nil {
            if current?[key] == nil { current?[key] = value }
        } else if channel[key] == nil {
            channel[key] = value
        }
    }
}

extension String {
    /// nil for an empty string, so `??` chains fall through blanks.
    var nonEmpty: String? { isEmpty ? nil : self }
}
