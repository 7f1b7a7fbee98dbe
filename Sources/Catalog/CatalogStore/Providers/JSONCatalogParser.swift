import ContentTree
import Foundation

/// The node's own catalog format (docs/catalog-format.md): a tree of containers and items with the
/// ContentItem fields, for operators who publish curated content without writing a feed.
public struct JSONCatalogParser: CatalogParser {
    public init() {}

    /// One node of the document; a node with `children` is a container, one with `uri` is playable.
    struct Node: Decodable {
        var id: String?
        var ref: String?
        var title: String?
        var subtitle: String?
        var artwork: String?
        var uri: String?
        var live: Bool?
        var explicit: Bool?
        var playable: Bool?
        var showsProgress: Bool?
        var artist: String?
        var album: String?
        var duration: Double?
        var trackNumber: Int?
        var trackCount: Int?
        var discNumber: Int?
        var discCount: Int?
        var genre: String?
        var releaseDate: String?
        var composer: String?
        var summary: String?
        var children: [Node]?
    }

    struct Document: Decodable {
        var format: String?
        var version: Int?
        var title: String?
        var items: [Node]
    }

    public func parse(_ data: Data, baseURL: URL?, source: CatalogSource) throws -> CatalogSnapshot {
        let document: Document
        do {
            document = try JSONDecoder().decode(Document.self, from: data)
        } catch {
            throw CatalogParseError("not a MediaNode JSON catalog: \(error)")
        }
        if let format = document.format, format != "medianode-catalog" {
            throw CatalogParseError("unknown catalog format \(format)")
        }
        if let version = document.version, version > 1 {
            throw CatalogParseError("catalog version \(version) is newer than this node understands (1)")
        }
        var snapshot = CatalogSnapshot(title: document.title)
        for node in document.items {
            try add(node, under: nil, to: &snapshot, baseURL: baseURL, source: source)
        }
        return snapshot
    }

    /// Identifiers are the document's ids under the source's namespace, so two catalogs cannot collide.
    static func identifier(_ id: String, source: CatalogSource) -> String { "\(source.identifier)/\(id)" }

    private func add(_ node: Node, under parent: String?, to snapshot: inout CatalogSnapshot, baseURL: URL?,
                     source: CatalogSource) throws {
        if let ref = node.ref {
            let identifier = Self.identifier(ref, source: source)
            guard snapshot.items[identifier] != nil, let parent else {
                throw CatalogParseError("ref \(ref) names no earlier item, or is at the top level")
            }
            snapshot.link(identifier, under: parent)
            return
        }
        guard let id = node.id, !id.isEmpty else { throw CatalogParseError("a node without an id") }
        guard let title = node.title else { throw CatalogParseError("node \(id) has no title") }
        let identifier = Self.identifier(id, source: source)
        if snapshot.items[identifier] != nil { throw CatalogParseError("duplicate id \(id)") }
        let isContainer = node.children != nil
        let uri = node.uri.flatMap { URLResolver.resolve($0, against: baseURL) }
        let item = ContentItem(
            identifier: identifier, title: title, subtitle: node.subtitle,
            artworkURL: node.artwork.flatMap { URLResolver.resolve($0, against: baseURL) },
            isContainer: isContainer, isPlayable: node.playable ?? (uri != nil),
            isStreamingContent: node.live ?? false, isExplicitContent: node.explicit ?? false,
            displaysPlaybackProgress: node.showsProgress ?? false, uri: uri, artist: node.artist,
            albumTitle: node.album, duration: node.live == true ? nil : node.duration,
            trackNumber: node.trackNumber, trackCount: node.trackCount, discNumber: node.discNumber,
            discCount: node.discCount, genre: node.genre, releaseDate: node.releaseDate, composer: node.composer,
            summary: node.summary, containerIdentifier: isContainer ? nil : (parent ?? source.mount))
        snapshot.add(item, under: parent)
        for child in node.children ?? [] {
            try add(child, under: identifier, to: &snapshot, baseURL: baseURL, source: source)
        }
    }
}

/// Resolves links found in feeds and playlists against the document's URL; tolerant of stray whitespace.
enum URLResolver {
    static func resolve(_ text: String, against base: URL?) -> String? {
        // Most links are already clean absolute URLs, which Foundation's URL would hand back unchanged;
        // parsing each cost a third of a large catalog's import.
        if isPlainAbsoluteURL(text) { return text }
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { return nil }
        let escaped = trimmed.replacingOccurrences(of: " ", with: "%20")
        if let url = URL(string: escaped), url.scheme != nil { return url.absoluteString }
        guard let base, let url = URL(string: escaped, relativeTo: base) else { return trimmed }
        return url.absoluteString
    }

    /// `scheme://` followed only by characters a URL may hold as they are (valid percent escapes, at most one
    /// `#`), with nothing to trim; anything else takes the full path through `URL`.
    static func isPlainAbsoluteURL(_ text: String) -> Bool {
        var bytes = text.utf8.makeIterator()
        guard let first = bytes.next(), isLetter(first) else { return false }
        var schemeEnded = false
        var slashes = 0
        var fragments = 0
        var pendingHexDigits = 0
        while let byte = bytes.next() {
            if pendingHexDigits > 0 {
                guard isHexDigit(byte) else { return false }
                pendingHexDigits -= 1
                continue
            }
            if !schemeEnded {
                if byte == UInt8(ascii: ":") {
                    schemeEnded = true
                } else if !(isLetter(byte) || isDigit(byte) || byte == UInt8(ascii: "+") || byte == UInt8(ascii: "-")
                    || byte == UInt8(ascii: "."))
                {
                    return false
                }
                continue
            }
            if slashes < 2 {
                guard byte == UInt8(ascii: "/") else { return false }
                slashes += 1
                continue
            }
            switch byte {
            case UInt8(ascii: "%"): pendingHexDigits = 2
            case UInt8(ascii: "#"):
                fragments += 1
                if fragments > 1 { return false }
            case 0x21...0x7E:
                if Self.unsafeCharacters.contains(byte) { return false }
            default: return false
            }
        }
        return schemeEnded && slashes == 2 && pendingHexDigits == 0
    }

    private static let unsafeCharacters: Set<UInt8> = Set("\"<>\\^`{|}[]".utf8)
    private static func isLetter(_ byte: UInt8) -> Bool { (byte | 0x20) >= 0x61 && (byte | 0x20) <= 0x7A }
    private static func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }
    private static func isHexDigit(_ byte: UInt8) -> Bool { isDigit(byte) || ((byte | 0x20) >= 0x61 && (byte | 0x20) <= 0x66) }
}
