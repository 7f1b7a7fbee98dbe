import Foundation

// MARK: - From a `--catalog` location to a provider

extension RemoteCatalogProvider {
    /// A provider for what an operator typed: an http(s) or file URL, or a plain path to a file. The kind
    /// comes from the name (`.m3u`, `.m3u8`, `.pls`: radio; `.json`: the node's catalog format; anything
    /// else: a podcast feed) unless `kind` says otherwise.
    public init(
        location: String, kind: CatalogSource.Kind? = nil, fetcher: any CatalogFetcher,
        policy: RefreshPolicy = RefreshPolicy()
    ) throws {
        let url = try Self.url(for: location)
        let kind = kind ?? Self.kind(for: url)
        guard kind != .local else { throw RefreshError.unsupportedLocation(location) }
        self.init(
            source: CatalogSource(kind: kind, location: url.absoluteString), url: url, parser: Self.parser(for: kind),
            fetcher: fetcher, policy: policy)
    }

    /// An absolute URL for a location; a path without a scheme is a file.
    public static func url(for location: String) throws -> URL {
        let trimmed = location.trimmingCharacters(in: .whitespaces)
        if let url = URL(string: trimmed), let scheme = url.scheme?.lowercased(),
            ["http", "https", "file"].contains(scheme)
        {
            return url
        }
        guard !trimmed.isEmpty, !trimmed.contains("://") else { throw RefreshError.unsupportedLocation(location) }
        return URL(fileURLWithPath: trimmed).standardizedFileURL
    }

    public static func kind(for url: URL) -> CatalogSource.Kind {
        switch url.pathExtension.lowercased() {
        case "m3u", "m3u8", "pls": .radio
        case "json": .json
        default: .podcast
        }
    }

    public static func parser(for kind: CatalogSource.Kind) -> any CatalogParser {
        switch kind {
        case .radio: RadioPlaylistParser()
        case .json: JSONCatalogParser()
        case .podcast, .local: PodcastFeedParser()
        }
    }
}
