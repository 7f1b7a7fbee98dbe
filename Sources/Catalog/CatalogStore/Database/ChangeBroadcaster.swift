import ContentTree
import Foundation
import Synchronization

/// Fans committed diffs out to every `changes()` subscriber; a subscriber that stops listening is dropped.
final class ChangeBroadcaster: Sendable {
    private let continuations = Mutex<[UUID: AsyncStream<CatalogDiff>.Continuation]>([:])

    func stream() -> AsyncStream<CatalogDiff> {
        let (stream, continuation) = AsyncStream<CatalogDiff>.makeStream(bufferingPolicy: .unbounded)
        let token = UUID()
        continuations.withLock { $0[token] = continuation }
        continuation.onTermination = { [weak self] _ in
            _ = self?.continuations.withLock { $0.removeValue(forKey: token) }
        }
        return stream
    }

    func publish(_ diff: CatalogDiff) {
        guard !diff.isEmpty else { return }
        for continuation in continuations.withLock({ Array($0.values) }) { continuation.yield(diff) }
    }
}
