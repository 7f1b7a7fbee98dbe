/// The queue the controller plays from: items, the order they play in, and the current one.
///
/// A value type with no engine or clock, so every rule about what plays next (S15) is tested as pure
/// logic. Indices called `index` count in play order (what now playing reports as `playbackQueueIndex`);
/// `originalIndex` counts in the order the items were given, which shuffle never changes.
public struct PlaybackQueue: Sendable, Equatable {
    /// Items in the order they were given.
    public internal(set) var items: [QueueItem]
    /// Play order: `order[index]` is the original index of the item that plays at `index`.
    public internal(set) var order: [Int]
    /// The current item's index in play order; nil when nothing is current (empty, or played past the end).
    public internal(set) var currentIndex: Int?
    public var repeatMode: RepeatMode
    public internal(set) var shuffleMode: ShuffleMode
    var generator: SeededGenerator

    /// A queue positioned at `originalIndex` (nil: nothing current). With shuffle on, the start item
    /// plays first and the rest follow in shuffled order.
    public init(
        items: [QueueItem] = [], startAt originalIndex: Int? = 0, repeatMode: RepeatMode = .off,
        shuffleMode: ShuffleMode = .off, seed: UInt64 = 0x4D65_6469_614E_6F64
    ) {
        self.items = []
        self.order = []
        self.repeatMode = repeatMode
        self.shuffleMode = shuffleMode
        self.generator = SeededGenerator(seed: seed)
        replaceItems(items, startAt: originalIndex)
    }

    // MARK: - Reading

    public var isEmpty: Bool { items.isEmpty }
    public var count: Int { items.count }

    public var currentItem: QueueItem? { currentIndex.map { items[order[$0]] } }

    /// The current item's index in the order the items were given.
    public var currentOriginalIndex: Int? { currentIndex.map { order[$0] } }

    /// Items in play order.
    public var playOrder: [QueueItem] { order.map { items[$0] } }

    /// Identifiers in play order.
    public var identifiers: [String] { order.map { items[$0].identifier } }

    public func item(at index: Int) -> QueueItem? {
        order.indices.contains(index) ? items[order[index]] : nil
    }

    /// What `P/queue` publishes.
    public var summary: QueueSummary {
        QueueSummary(identifiers: identifiers, index: currentIndex, repeatMode: repeatMode, shuffleMode: shuffleMode)
    }

    // MARK: - Changing the items

    /// Replaces every item and positions at `originalIndex`, keeping the repeat and shuffle modes.
    public mutating func replaceItems(_ newItems: [QueueItem], startAt originalIndex: Int? = 0) {
        items = newItems
        let start = originalIndex.flatMap { newItems.indices.contains($0) ? $0 : nil }
        reorder(keeping: start)
    }

    /// Empties the queue (S8: stop releases the current playlist).
    public mutating func removeAll() {
        items = []
        order = []
        currentIndex = nil
    }

    // MARK: - Moving

    /// Makes the item at play-order `index` current; false when there is no such index.
    @discardableResult
    public mutating func moveTo(index: Int) -> Bool {
        guard order.indices.contains(index) else { return false }
        currentIndex = index
        return true
    }

    /// Makes the item given at `originalIndex` current (used when the engine reports it started).
    @discardableResult
    public mutating func moveTo(originalIndex: Int) -> Bool {
        guard let index = order.firstIndex(of: originalIndex) else { return false }
        currentIndex = index
        return true
    }

    /// Leaves the queue with nothing current, as after playing past the end with repeat off.
    public mutating func movePastEnd() {
        currentIndex = nil
    }

    /// The play-order index that `advance(_:)` would move to; nil when the queue would stop.
    public func index(after advance: QueueAdvance) -> Int? {
        guard let current = currentIndex else { return nil }
        switch (advance, repeatMode) {
        case (.naturalEnd, .one):
            return current
        case (_, _) where current + 1 < order.count:
            return current + 1
        case (_, .off):
            return nil
        default:
            // Repeat all wraps; nextTrack under repeat one moves on and wraps the same way.
            return 0
        }
    }

    /// Moves on by the repeat rules; returns the new current item, or nil when playback stops
    /// (then nothing is current).
    @discardableResult
    public mutating func advance(_ advance: QueueAdvance) -> QueueItem? {
        currentIndex = index(after: advance)
        return currentItem
    }

    /// The play-order index previousTrack moves to when it does not restart; nil at the first item
    /// with repeat off.
    public func indexBefore() -> Int? {
        guard let current = currentIndex else { return nil }
        if current > 0 { return current - 1 }
        return repeatMode == .off ? nil : order.count - 1
    }

    /// previousTrack: restarts the current item when more than `restartThreshold` seconds in (or when
    /// there is nothing before it), else moves to the item before. Nil when nothing is current.
    public mutating func previousTrack(position: Double, restartThreshold: Double = 3) -> PreviousTrackMove? {
        guard currentIndex != nil else { return nil }
        if position > restartThreshold { return .restartCurrent }
        guard let before = indexBefore() else { return .restartCurrent }
        currentIndex = before
        return .moved
    }
}

/// Why the queue moves on.
public enum QueueAdvance: Sendable, Equatable {
    /// The item played to its end (S15): repeat one replays it.
    case naturalEnd
    /// The user asked for the next track (or the item failed): always moves on.
    case nextTrack
}

/// What previousTrack did to the queue.
public enum PreviousTrackMove: Sendable, Equatable {
    /// The current item stays and starts over.
    case restartCurrent
    /// The item before became current.
    case moved
}
