import Artwork
import CatalogStore
import ContentTree
import Foundation
import Logging
import Playback

/// Finds an item's picture and makes it publishable (S13): an embedded picture from the stream's tags,
/// the catalog's stored artwork, a cover.jpg/folder.jpg beside a local file, or the catalog's artwork URL
/// fetched with timeouts. None of it is on the path of now playing: the catalog's picture is named from the
/// queue item (see `NowPlayingPublisher`), and the caller publishes without the others first.
struct ArtworkResolver: Sendable {
    let catalog: (any ContentCatalog)?
    /// Where cached pictures are read, and downloaded ones kept.
    let artworkStore: (any ArtworkStore)?
    let processor: ArtworkProcessor
    let logger: Logger
    /// The node's one HTTP client for artwork: it gives up on a server that stalls before answering or
    /// between bytes, and on a body over its cap, whatever the server does.
    let fetcher: any CatalogFetcher
    /// Seconds before an artwork download gives up, from the request to the last byte.
    let downloadTimeout: Duration
    /// Larger downloads are refused while they arrive: a cover is never this big, a misconfigured URL may be.
    static let maximumDownload = 10 * 1024 * 1024

    init(catalog: (any ContentCatalog)?, artworkStore: (any ArtworkStore)?, processor: ArtworkProcessor, logger: Logger,
         downloadTimeout: Duration = .seconds(8)) {
        self.catalog = catalog
        self.artworkStore = artworkStore
        self.processor = processor
        self.logger = logger
        self.downloadTimeout = downloadTimeout
        fetcher = HTTPCatalogFetcher(limits: HTTPFetchLimits(
            connectTimeout: downloadTimeout, idleTimeout: downloadTimeout, maxBodyBytes: Self.maximumDownload))
    }

    /// Where a picture came from; an embedded one outranks the others.
    enum Source: String, Equatable, Sendable {
        case embedded, catalog, folder, download
    }

    /// A candidate picture: where it came from, and what to say about it in the log.
    typealias Candidate = (source: Source, origin: String, load: @Sendable () async -> [UInt8]?)

    /// The picture for `item`, processed, or nil if it has none or none could be read.
    func resolve(_ item: QueueItem, tags: StreamTags) async -> (ProcessedArtwork, Source)? {
        for candidate in await candidates(item, tags: tags) {
            guard let bytes = await candidate.load() else { continue }
            do {
                let processed = try await processOffPool(bytes)
                if candidate.source == .download { await keep(processed, downloadedFrom: candidate.origin) }
                return (processed, candidate.source)
            } catch {
                logger.warning("artwork of \(item.identifier) from \(candidate.origin) is unusable: \(error)")
            }
        }
        return nil
    }

    /// The catalog's key for the picture it has cached for `item`, if it has one: one read of the catalog.
    func cachedKey(of item: QueueItem) async -> String? {
        guard artworkStore != nil else { return nil }
        return try? await catalog?.item(identifier: item.identifier)?.artworkKey
    }

    private func candidates(_ item: QueueItem, tags: StreamTags) async -> [Candidate] {
        var list: [Candidate] = []
        if let image = tags.image, !image.isEmpty { list.append((.embedded, "the stream's tags", { image })) }
        let stored = try? await catalog?.item(identifier: item.identifier)
        if let artworkStore, let key = stored?.artworkKey {
            list.append((.catalog, "the catalog cache", { try? await artworkStore.artwork(key: key).map { [UInt8]($0.data) } }))
        }
        if !item.uri.contains("://") || item.uri.hasPrefix("file://") {
            let path = LocalPath.path(fromFileURI: item.uri) ?? item.uri
            let directory = path.lastIndex(of: "/").map { String(path[..<$0]) } ?? "."
            list.append((.folder, "the folder \(LocalPath.displayName(directory))", {
                for name in ["cover.jpg", "folder.jpg", "cover.png", "folder.png", "Cover.jpg", "Folder.jpg"] {
                    if let data = LocalPath.contents(of: directory + "/" + name) { return [UInt8](data) }
                }
                return nil
            }))
        }
        if let location = stored?.artworkURL, let url = URL(string: location) {
            list.append((.download, location, { await download(url, for: item.identifier) }))
        }
        return list
    }

    /// Caches a downloaded picture, as scaled for publishing, for every item with that artwork URL: the
    /// catalog's own downloader skips pictures over 256 KiB, and without this each play of such an item,
    /// after every restart, would download it again, and the tree would show it nowhere (S13, S26).
    private func keep(_ processed: ProcessedArtwork, downloadedFrom location: String) async {
        guard let artworkStore else { return }
        do {
            try await artworkStore.attachArtwork(
                ArtworkBlob(data: Data(processed.bytes), mimeType: processed.mimeType), toItemsWithArtworkURL: location)
        } catch {
            logger.warning("artwork from \(location) could not be cached in the catalog: \(error)")
        }
    }

    private func processOffPool(_ bytes: [UInt8]) async throws -> ProcessedArtwork {
        let processor = self.processor
        return try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global(qos: .utility).async {
                continuation.resume(with: Result { () throws(ArtworkError) in try processor.process(bytes) })
            }
        }
    }

    /// The bytes at `url`, or nil after one clear log line saying why not.
    func download(_ url: URL, for identifier: String) async -> [UInt8]? {
        do {
            let response = try await fetcher.fetch(FetchRequest(
                url: url, headers: ["Accept": "image/*"], timeout: downloadTimeout, maxBodyBytes: Self.maximumDownload))
            guard (200..<300).contains(response.status), !response.body.isEmpty else {
                let empty = (200..<300).contains(response.status) ? " with an empty body" : ""
                logger.warning("artwork of \(identifier) not fetched from \(url): HTTP \(response.status)\(empty)")
                return nil
            }
            return [UInt8](response.body)
        } catch RefreshError.timedOut {
            logger.warning("artwork of \(identifier) not fetched from \(url): no answer within \(downloadTimeout)")
        } catch {
            logger.warning("artwork of \(identifier) not fetched from \(url): \(error)")
        }
        return nil
    }
}
