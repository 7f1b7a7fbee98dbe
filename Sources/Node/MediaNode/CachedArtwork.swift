import Artwork
import CatalogStore
import Dispatch
import Foundation
import Logging

/// A picture of the catalog cache as it is published on `P/artwork/<key>`, where `key` is the catalog's
/// (the SHA-256 of the cached bytes): now playing and the content tree name the same topic for the same
/// picture. The scan caches pictures already scaled (`ArtworkBlob.publishable`), so they go out as they
/// are; one cached larger than `--artwork-size` (a smaller size than the default, or a file from an
/// older version) is scaled here, off the cooperative pool.
enum CachedArtwork {
    /// The published picture for `key`, or nil (logged) when it is not cached or cannot be read.
    static func publishable(key: String, store: any ArtworkStore, processor: ArtworkProcessor, logger: Logger) async
        -> ProcessedArtwork? {
        let blob: ArtworkBlob?
        do {
            blob = try await store.artwork(key: key)
        } catch {
            logger.warning("artwork \(key) could not be read from the catalog: \(error)")
            return nil
        }
        guard let blob, !blob.data.isEmpty else {
            logger.debug("artwork \(key) is named in the catalog but not cached")
            return nil
        }
        let bytes = [UInt8](blob.data)
        let isJPEG = bytes.starts(with: [0xFF, 0xD8, 0xFF])
        let isPNG = bytes.starts(with: [0x89, 0x50, 0x4E, 0x47])
        // Passed on as it is only when a head unit can show it as it is: small in bytes and in pixels (a
        // small PNG can still declare 30,000 x 30,000 pixels).
        if isJPEG || isPNG, bytes.count <= ArtworkBlob.maximumBytes, let size = ArtworkProcessor.dimensions(of: bytes),
           max(size.width, size.height) <= processor.maximumDimension {
            return ProcessedArtwork(bytes: bytes, width: size.width, height: size.height, mimeType: isPNG ? "image/png" : "image/jpeg")
        }
        let scaled: Result<ProcessedArtwork, ArtworkError> = await withCheckedContinuation { continuation in
            DispatchQueue.global(qos: .utility).async {
                continuation.resume(returning: Result { () throws(ArtworkError) in try processor.process(bytes) })
            }
        }
        switch scaled {
        case let .success(processed): return processed
        case let .failure(error):
            logger.warning("artwork \(key) in the catalog is unusable: \(error)")
            return nil
        }
    }

    /// The size a cached picture of `width` x `height` is published at (scaled to fit `maximumDimension`, as
    /// `ArtworkProcessor` scales), known before its bytes are read.
    static func publishedSize(width: Int, height: Int, maximumDimension: Int) -> (width: Int, height: Int) {
        let scale = min(1, Double(maximumDimension) / Double(max(1, max(width, height))))
        return (max(1, Int((Double(width) * scale).rounded())), max(1, Int((Double(height) * scale).rounded())))
    }
}
