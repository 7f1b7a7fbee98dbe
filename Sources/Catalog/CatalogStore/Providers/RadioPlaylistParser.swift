import ContentTree
import Foundation

/// Radio station lists in M3U/M3U8 (with #EXTINF) or PLS: every entry becomes a live stream directly under
/// the Radio section, keeping the list's order, so a station is two taps from the root.
public struct RadioPlaylistParser: CatalogParser {
    public init() {}

    /// One parsed playlist entry.
    public struct Entry: Sendable, Hashable {
        public var url: String
        public var title: String?
        /// Seconds; nil or negative for a live stream.
        public var length: Double?
        public var logo: String?
        public var group: String?
    }

    public func parse(_ data: Data, baseURL: URL?, source: CatalogSource) throws -> CatalogSnapshot {
        guard let text = String(data: data, encoding: .utf8) ?? String(data: data, encoding: .isoLatin1) else {
            throw CatalogParseError("playlist is not text")
        }
        let entries = Self.isPLS(text) ? Self.parsePLS(text, baseURL: baseURL) : Self.parseM3U(text, baseURL: baseURL)
        guard !entries.isEmpty else { throw CatalogParseError("playlist has no entries") }
        var snapshot = CatalogSnapshot()
        var seen = Set<String>()
        for entry in entries where seen.insert(entry.url).inserted {
            let live = (entry.length ?? -1) <= 0
            let item = ContentItem(
                identifier: StableIdentifier.make("station", key: source.identifier + "\n" + entry.url),
                title: entry.title.flatMap { $0.isEmpty ? nil : $0 } ?? Self.fallbackTitle(entry.url),
                subtitle: entry.group, artworkURL: entry.logo, isPlayable: true, isStreamingContent: live,
                uri: entry.url, duration: live ? nil : entry.length, genre: entry.group,
                containerIdentifier: source.mount)
            snapshot.add(item)
        }
        return snapshot
    }

    static func isPLS(_ text: String) -> Bool {
        text.split(whereSeparator: \.isNewline).first { !$0.trimmingCharacters(in: .whitespaces).isEmpty }?
            .trimmingCharacters(in: .whitespaces).lowercased() == "[playlist]"
    }

    /// `#EXTINF:<length> key="value" ...,<title>` followed by the URL line; other directives are ignored.
    public static func parseM3U(_ text: String, baseURL: URL?) -> [Entry] {
        var entries: [Entry] = []
        var pending: Entry?
        for rawLine in text.split(whereSeparator: \.isNewline) {
            let line = rawLine.trimmingCharacters(in: .whitespaces).replacingOccurrences(of: "\u{FEFF}", with: "")
            if line.isEmpty { continue }
            if line.uppercased().hasPrefix("#EXTINF:") {
                pending = parseExtinf(String(line.dropFirst(8)))
            } else if line.hasPrefix("#") {
                continue
            } else if let url = URLResolver.resolve(line, against: baseURL) {
                var entry = pending ?? Entry(url: url)
                entry.url = url
                entries.append(entry)
                pending = nil
            }
        }
        return entries
    }

    static func parseExtinf(_ body: String) -> Entry {
        // The title follows the first comma outside quotes.
        var inQuotes = false
        var split: String.Index?
        for index in body.indices {
            if body[index] == "\"" { inQuotes.toggle() }
            if body[index] == ",", !inQuotes {
                split = index
                break
            }
        }
        let head = split.map { String(body[..<$0]) } ?? body
        let title = split.map { String(body[body.index(after: $0)...]).trimmingCharacters(in: .whitespaces) }
        var attributes: [String: String] = [:]
        let scanner = head.split(separator: " ", maxSplits: 1)
        let length = scanner.first.flatMap { Double($0) }
        if scanner.count > 1 {
            let pattern = #"([A-Za-z0-9_-]+)="([^"]*)""#
            if let regex = try? NSRegularExpression(pattern: pattern) {
                let rest = String(scanner[1])
                for match in regex.matches(in: rest, range: NSRange(rest.startIndex..., in: rest)) {
                    guard let key = Range(match.range(at: 1), in: rest), let value = Range(match.range(at: 2), in: rest)
                    else { continue }
                    attributes[rest[key].lowercased()] = String(rest[value])
                }
            }
        }
        return Entry(
            url: "", title: title, length: length, logo: attributes["tvg-logo"].flatMap { $0.isEmpty ? nil : $0 },
            group: attributes["group-title"].flatMap { $0.isEmpty ? nil : $0 })
    }

    /// `FileN=`, `TitleN=`, `LengthN=` keys in any order and case.
    public static func parsePLS(_ text: String, baseURL: URL?) -> [Entry] {
        var files: [Int: String] = [:], titles: [Int: String] = [:], lengths: [Int: Double] = [:]
        for rawLine in text.split(whereSeparator: \.isNewline) {
            let parts = rawLine.split(separator: "=", maxSplits: 1)
            guard parts.count == 2 else { continue }
            let key = parts[0].trimmingCharacters(in: .whitespaces).lowercased()
            let value = parts[1].trimmingCharacters(in: .whitespaces)
            for (prefix, store) in [("file", 0), ("title", 1), ("length", 2)] where key.hasPrefix(prefix) {
                guard let number = Int(key.dropFirst(prefix.count)) else { continue }
                switch store {
                case 0: files[number] = value
                case 1: titles[number] = value
                default: lengths[number] = Double(value)
                }
            }
        }
        return files.keys.sorted().compactMap { number in
            guard let url = files[number].flatMap({ URLResolver.resolve($0, against: baseURL) }) else { return nil }
            return Entry(url: url, title: titles[number], length: lengths[number])
        }
    }

    static func fallbackTitle(_ url: String) -> String {
        URL(string: url)?.host ?? url
    }
}
