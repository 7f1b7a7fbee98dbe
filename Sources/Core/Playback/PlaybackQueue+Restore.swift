// MARK: - A queue an earlier run saved (resume after a restart)

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
