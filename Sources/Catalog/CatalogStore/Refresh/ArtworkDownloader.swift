import ContentTree
import Foundation
import Logging

/// Fetches the artwork remote catalogs point at and stores it by content hash (S13), in the background:
/// browsing never waits for it, and an item simply shows no artwork until its bytes are cached.
public struct ArtworkDownloader: Sendable {
    public let database: CatalogDatabase
    public let fetcher: any CatalogFetcher
    /// The contract allows at most 256 KiB per picture; larger ones are skipped, not resized.
    public var maxBytes: Int
    public var timeout: Duration
    /// Downloads in flight at once.
    public var concurrency: Int
    let logger: Logger

    public init(
        database: CatalogDatabase, fetcher: any CatalogFetcher, maxBytes: Int = 256 << 10,
        timeout: Duration = .seconds(20), concurrency: Int = 3,
        logger: Logger = Logger(label: "medianode.catalog.artwork")
    ) {
        self.database = database
        self.fetcher = fetcher
        self.maxBytes = maxBytes
        self.timeout = timeout
        self.concurrency = max(1, concurrency)
        self.logger = logger
    }

    public struct Report: Sendable, Equatable {
        public var stored: Int = 0
        /// URLs that could not be fetched or are not a usable picture; the caller may skip them next time.
        public var failed: [String] = []
        public var diff = CatalogDiff()
    }

    /// Downloads up to `limit` pending artwork URLs, skipping `skipping`.
    public func downloadPending(limit: Int = 200, skipping: Set<String> = []) async -> Report {
        var report = Report()
        guard let pending = try? await database.pendingArtworkURLs(limit: limit + skipping.count) else { return report }
        let urls = pending.filter { !skipping.contains($0) }.prefix(limit)
        await withTaskGroup(of: (String, ArtworkBlob?).self) { group in
            var iterator = urls.makeIterator()
            for _ in 0..<concurrency {
                guard let url = iterator.next() else { break }
                group.addTask { (url, await download(url)) }
            }
            while let (url, blob) = await group.next() {
                if let blob, let diff = try? await database.attachArtwork(blob, toItemsWithArtworkURL: url) {
                    report.stored += 1
                    report.diff.merge(diff)
                } else {
                    report.failed.append(url)
                }
                if let next = iterator.next() { group.addTask { (next, await download(next)) } }
            }
        }
        return report
    }

    /// One picture, or nil when it cannot be fetched or is not a JPEG or PNG within the size limit.
    func download(_ location: String) async -> ArtworkBlob? {
        guard let url = URL(string: location) else { return nil }
        do {
            let response = try await fetcher.fetch(FetchRequest(url: url, timeout: timeout, maxBodyBytes: maxBytes))
            guard response.status == 200, !response.body.isEmpty, response.body.count <= maxBytes,
                Self.isPicture(response.body)
            else {
                logger.debug("artwork skipped", metadata: ["url": "\(location)", "status": "\(response.status)"])
                return nil
            }
            return ArtworkBlob(data: response.body)
        } catch {
            logger.debug("artwork not fetched", metadata: ["url": "\(location)", "error": "\(error)"])
            return nil
        }
    }

    /// JPEG or PNG by their magic bytes.
    static func isPicture(_ data: Data) -> Bool {
        data.starts(with: [0xFF, 0xD8, 0xFF]) || data.starts(with: [0x89, 0x50, 0x4E, 0x47])
    }
}
