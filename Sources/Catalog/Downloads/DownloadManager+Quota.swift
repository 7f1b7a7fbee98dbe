import Foundation

// MARK: - The quota

extension DownloadManager {
    /// The bytes finished copies may take, and what must never be evicted (the playing item).
    public func setQuota(_ bytes: Int64, isPlaying: @escaping @Sendable (String) -> Bool) {
        state.withLock { state in
            state.quota = bytes
            state.isPlaying = isPlaying
        }
    }

    /// Over the quota, deletes finished copies until the rest fit: episodes played to the end first (oldest
    /// publication first), then the oldest downloads; never `keeping` (just finished) nor the playing item.
    /// An evicted copy's row stays as `notDownloaded`, so automatic downloads do not fetch it back.
    /// Checked after each finished download, and at start: a node restarted with a smaller quota keeps to
    /// it at once, not only after its next download.
    func enforceQuota(keeping: String? = nil) async {
        let (finished, quota, isPlaying) = state.withLock { state in
            (state.records.values.filter { $0.status == .downloaded }, state.quota, state.isPlaying)
        }
        var total = finished.reduce(Int64(0)) { $0 + $1.bytes }
        guard total > quota else { return }
        let candidates = finished.filter { $0.identifier != keeping && !isPlaying($0.identifier) }
        let played = (try? await store.playedToEnd(among: candidates.map(\.identifier))) ?? [:]
        let order = candidates.sorted { a, b in
            switch (played[a.identifier], played[b.identifier]) {
            case let (first?, second?): return (first ?? "", a.identifier) < (second ?? "", b.identifier)
            case (.some, nil): return true
            case (nil, .some): return false
            case (nil, nil): return (a.finishedAt ?? .distantPast, a.identifier) < (b.finishedAt ?? .distantPast, b.identifier)
            }
        }
        for record in order where total > quota {
            logger.info("over the downloads quota: deleting a copy", metadata: ["identifier": "\(record.identifier)"])
            try? await delete(identifier: record.identifier)
            total -= record.bytes
        }
    }
}
