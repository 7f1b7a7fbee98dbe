import Artwork
import CatalogStore
import Dispatch
import Foundation
import Logging
import Synchronization

/// Publishes the pictures the content tree names (S13, S21): every `artwork` topic a published node or
/// a contentItem answer points at holds the picture's bytes, retained, read from the catalog cache.
///
/// In the background (`run()`, in the content tree service) and once each: the start publishes status,
/// commands and the tree first, and a picture shared by a whole album goes out once. A cached picture
/// over the contract's 256 KiB, or in another format than JPEG or PNG, is converted first; one that
/// cannot be read is logged and left out.
final class TreeArtworkPublisher: Sendable {
    private let store: (any ArtworkStore)?
    private let retained: RetainedPublisher
    private let topics: TopicLayout
    private let processor: ArtworkProcessor
    private let logger: Logger
    /// Opens once the node's initial state is out.
    private let started: Latch
    private let state = Mutex(State())
    static let maximumBytes = 256 * 1024

    private struct State {
        /// Keys asked for so far (published, waiting, or found missing).
        var requested: Set<String> = []
        var waiting: [String] = []
    }
    /// Yields when keys wait; a burst coalesces into one wake-up.
    private let wake: AsyncStream<Void>
    private let wakeContinuation: AsyncStream<Void>.Continuation

    init(store: (any ArtworkStore)?, retained: RetainedPublisher, topics: TopicLayout, processor: ArtworkProcessor,
         started: Latch, logger: Logger) {
        self.store = store
        self.retained = retained
        self.topics = topics
        self.processor = processor
        self.started = started
        self.logger = logger
        (wake, wakeContinuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    /// Publishes the pictures of these artwork keys that are not out yet.
    func publish(_ keys: some Sequence<String>) {
        guard store != nil else { return }
        let isWaiting = state.withLock { state -> Bool in
            for key in keys where state.requested.insert(key).inserted { state.waiting.append(key) }
            return !state.waiting.isEmpty
        }
        if isWaiting { wakeContinuation.yield() }
    }

    /// Publishes the pictures asked for, once the initial state is out, until cancelled.
    func run() async {
        await started.wait()
        for await _ in wake {
            while let key = next() {
                guard let bytes = await picture(key) else { continue }
                retained.publish(topics.artwork(key), bytes)
            }
        }
    }

    private func next() -> String? {
        state.withLock { state in
            guard !state.waiting.isEmpty else { return nil }
            return state.waiting.removeFirst()
        }
    }

    /// The cached picture as it may be published, or nil after a log line saying why not.
    private func picture(_ key: String) async -> [UInt8]? {
        guard let store else { return nil }
        return await CachedArtwork.publishable(key: key, store: store, processor: processor, logger: logger)?.bytes
    }
}
