import Artwork
import CatalogStore
import ContentTree
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Logging
import Playback

/// Finds an item's picture and makes it publishable (S13): an embedded picture from the stream's tags,
/// the catalog's stored artwork, a cover.jpg/folder.jpg beside a local file, or the catalog's artwork URL
/// fetched with timeouts. Never on the path of now playing: the caller publishes without it first.
struct ArtworkResolver: Sendable {
    let catalog: (any ContentCatalog)?
    let processor: ArtworkProcessor
    let logger: Logger
    /// Seconds before an artwork download gives up.
    var downloadTimeout: Double = 8
    /// Larger downloads are refused: a cover is never this big, a misconfigured URL may be.
    var maximumDownload = 10 * 1024 * 1024

    /// Where a picture came from; an embedded one outranks the others.
    enum Source: Equatable, Sendable {
        case embedded, catalog, folder, download
    }

    /// The picture for `item`, processed, or nil if it has none or none could be read.
    func resolve(_ item: QueueItem, tags: StreamTags) async -> (ProcessedArtwork, Source)? {
        for (source, load) in candidates(item, tags: tags) {
            guard let bytes = await load() else { continue }
            do {
                let processed = try await processOffPool(bytes)
                return (processed, source)
            } catch {
                logger.warning("artwork of \(item.identifier) from \(source) is unusable: \(error)")
            }
        }
        return nil
    }

    private func candidates(_ item: QueueItem, tags: StreamTags) -> [(Source, @Sendable () async -> [UInt8]?)] {
        var list: [(Source, @Sendable () async -> [UInt8]?)] = []
        if let image = tags.image, !image.isEmpty { list.append((.embedded, { image })) }
        let catalog = self.catalog
        let identifier = item.identifier
        list.append((.catalog, {
            guard let database = catalog as? CatalogDatabase,
                  let key = try? await database.item(identifier: identifier)?.artworkKey,
                  let blob = try? await database.artwork(key: key)
            else { return nil }
            return [UInt8](blob.data)
        }))
        if !item.uri.contains("://") || item.uri.hasPrefix("file://") {
            let path = item.uri.hasPrefix("file://") ? (URL(string: item.uri)?.path ?? item.uri) : item.uri
            let directory = URL(fileURLWithPath: path).deletingLastPathComponent()
            list.append((.folder, {
                for name in ["cover.jpg", "folder.jpg", "cover.png", "folder.png", "Cover.jpg", "Folder.jpg"] {
                    if let data = FileManager.default.contents(atPath: directory.appendingPathComponent(name).path) {
                        return [UInt8](data)
                    }
                }
                return nil
            }))
        }
        let timeout = downloadTimeout
        let limit = maximumDownload
        let logger = self.logger
        list.append((.download, {
            guard let url = try? await catalog?.item(identifier: identifier)?.artworkURL.flatMap(URL.init(string:))
            else { return nil }
            return await Self.download(url, timeout: timeout, limit: limit, logger: logger)
        }))
        return list
    }

    private func processOffPool(_ bytes: [UInt8]) async throws -> ProcessedArtwork {
        let processor = self.processor
        return try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global(qos: .utility).async {
                continuation.resume(with: Result { () throws(ArtworkError) in try processor.process(bytes) })
            }
        }
    }

    static func download(_ url: URL, timeout: Double, limit: Int, logger: Logger) async -> [UInt8]? {
        var request = URLRequest(url: url, timeoutInterval: timeout)
        request.setValue("image/*", forHTTPHeaderField: "Accept")
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = timeout
        configuration.timeoutIntervalForResource = timeout
        let session = URLSession(configuration: configuration)
        defer { session.finishTasksAndInvalidate() }
        do {
            let (data, response) = try await session.data(for: request)
            guard let http = response as? HTTPURLResponse, (200..<300).contains(http.statusCode) else {
                logger.warning("artwork \(url) answered \((response as? HTTPURLResponse)?.statusCode ?? 0)")
                return nil
            }
            guard data.count <= limit else {
                logger.warning("artwork \(url) is \(data.count) bytes, over the \(limit) limit")
                return nil
            }
            return [UInt8](data)
        } catch {
            logger.warning("artwork \(url) not fetched: \(error.localizedDescription)")
            return nil
        }
    }
}
