// MARK: - Restoring the play state an earlier run saved (resume after a restart)

extension PlaybackQueue {
    /// A queue exactly as it was saved: `order` in play order (a permutation of `items`' indices, so a
    /// shuffled queue comes back in the order the listener heard), `currentIndex` in play order. Nil when
    /// the order does not fit the items.
    public init?(restoring items: [QueueItem], order: [Int], currentIndex: Int?, repeatMode: RepeatMode,
                 shuffleMode: ShuffleMode, seed: UInt64 = 0x4D65_6469_614E_6F64) {
        guard order.count == items.count, Set(order) == Set(items.indices),
              currentIndex.map(order.indices.contains) ?? true
        else { return nil }
        self.init(repeatMode: repeatMode, shuffleMode: shuffleMode, seed: seed)
        self.items = items
        self.order = order
        self.currentIndex = currentIndex
    }
}

extension PlaybackController {
    /// Puts back a queue an earlier run saved, its current item paused at `position` and not yet loaded:
    /// the engine does no work at start (a stream is not connected to, an offline episode does not fail),
    /// and the first `play` loads the item there. A queue with nothing current leaves the node stopped.
    public func restore(_ restored: PlaybackQueue, position: Double, rate restoredRate: Double) async {
        await exclusively {
            await releaseEngine()
            queue = restored
            if restoredRate.isFinite, restoredRate > 0 { rate = restoredRate }
            guard let item = queue.currentItem else {
                publish()
                return
            }
            state = .paused
            duration = item.duration
            anchor(at: item.isLiveStream ? 0 : clamped(max(0, position.isFinite ? position : 0)))
            publish()
        }
    }

    /// A restored item waiting for its first `play`: paused, current, and not in the engine.
    var isRestoredUnloaded: Bool { currentToken == nil && state == .paused && queue.currentItem != nil }
}
