// MARK: - Editing: add, remove and move entries (addToQueue, removeFromQueue, moveQueueItem)

/// Where added items go.
public enum QueueInsertion: Sendable, Equatable {
    /// Right after the current item.
    case afterCurrent
    /// After the last entry.
    case atEnd
}

/// How an edit renumbered the items: `newIndex[old]` is the original index an item has now, nil for
/// the one removed. The controller uses it to keep its preload pointing at the same item.
public struct QueueRenumbering: Sendable, Equatable {
    public var newIndex: [Int?]

    func map(_ original: Int?) -> Int? { original.flatMap { newIndex.indices.contains($0) ? newIndex[$0] : nil } }
}

extension PlaybackQueue {
    /// Inserts `newItems` so they play in the given order from `insertion`. Indices are in play order, the
    /// order the listener hears: with shuffle on they go into the shuffled order, with shuffle off into the
    /// given order itself, so that turning shuffle on and off later keeps them where they were put.
    @discardableResult
    public mutating func insert(_ newItems: [QueueItem], _ insertion: QueueInsertion) -> QueueRenumbering {
        let at: Int
        switch insertion {
        case .afterCurrent: at = currentIndex.map { $0 + 1 } ?? order.count
        case .atEnd: at = order.count
        }
        let oldCount = items.count
        if shuffleMode == .off {
            items.insert(contentsOf: newItems, at: at)
            order = Array(items.indices)
            if let current = currentIndex, at <= current { currentIndex = current + newItems.count }
            return QueueRenumbering(newIndex: (0..<oldCount).map { $0 < at ? $0 : $0 + newItems.count })
        }
        items += newItems
        order.insert(contentsOf: oldCount..<items.count, at: at)
        if let current = currentIndex, at <= current { currentIndex = current + newItems.count }
        return QueueRenumbering(newIndex: Array(0..<oldCount))
    }

    /// Removes the entry at play-order `index`. When it was the current one, the entry after it becomes
    /// current (nothing at the end).
    @discardableResult
    public mutating func remove(at index: Int) -> QueueRenumbering {
        let original = order.remove(at: index)
        items.remove(at: original)
        order = order.map { $0 > original ? $0 - 1 : $0 }
        if let current = currentIndex {
            if index < current {
                currentIndex = current - 1
            } else if index == current {
                currentIndex = index < order.count ? index : nil
            }
        }
        let count = items.count + 1
        return QueueRenumbering(newIndex: (0..<count).map { $0 == original ? nil : ($0 > original ? $0 - 1 : $0) })
    }

    /// Moves the entry at play-order `from` to `to`; the current item stays current wherever it now is.
    @discardableResult
    public mutating func move(from: Int, to: Int) -> QueueRenumbering {
        let current = currentOriginalIndex
        if shuffleMode == .off {
            items.insert(items.remove(at: from), at: to)
            order = Array(items.indices)
            let renumbering = QueueRenumbering(newIndex: Self.movedIndices(count: items.count, from: from, to: to))
            currentIndex = renumbering.map(current)
            return renumbering
        }
        order.insert(order.remove(at: from), at: to)
        currentIndex = current.flatMap { order.firstIndex(of: $0) }
        return QueueRenumbering(newIndex: Array(items.indices))
    }

    /// Where each index of a list is after the element at `from` moved to `to`.
    static func movedIndices(count: Int, from: Int, to: Int) -> [Int?] {
        var positions = Array(0..<count)
        positions.insert(positions.remove(at: from), at: to)
        var newIndex = [Int?](repeating: nil, count: count)
        for (new, old) in positions.enumerated() { newIndex[old] = new }
        return newIndex
    }
}
