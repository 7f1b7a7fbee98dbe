// MARK: - Shuffle

extension PlaybackQueue {
    /// Adopts `mode` (S10: the target state). Applying the mode already in force changes nothing and
    /// returns false. The current item stays current: turning shuffle on puts it first in the shuffled
    /// order; turning it off restores the given order around it.
    @discardableResult
    public mutating func setShuffleMode(_ mode: ShuffleMode) -> Bool {
        guard mode != shuffleMode else { return false }
        shuffleMode = mode
        reorder(keeping: currentOriginalIndex)
        return true
    }

    /// Rebuilds `order` for the current shuffle mode and keeps the item at `originalIndex` current.
    mutating func reorder(keeping originalIndex: Int?) {
        switch shuffleMode {
        case .off:
            order = Array(items.indices)
        case .items:
            var rest = items.indices.filter { $0 != originalIndex }
            rest.stableShuffle(using: &generator)
            order = (originalIndex.map { [$0] } ?? []) + rest
        case .collections:
            var groups = Self.collections(of: items)
            let first = groups.firstIndex { group in originalIndex.map(group.contains) ?? false }
            let leading = first.map { groups.remove(at: $0) } ?? []
            groups.stableShuffle(using: &generator)
            order = leading + groups.flatMap { $0 }
        }
        currentIndex = originalIndex.flatMap { order.firstIndex(of: $0) }
    }

    /// Original indices grouped by container, groups in order of first appearance, each group in the
    /// given order. An item without a container is a collection of its own.
    static func collections(of items: [QueueItem]) -> [[Int]] {
        var groups: [[Int]] = []
        var groupOfContainer: [String: Int] = [:]
        for (index, item) in items.enumerated() {
            if let container = item.containerIdentifier, let group = groupOfContainer[container] {
                groups[group].append(index)
            } else {
                if let container = item.containerIdentifier { groupOfContainer[container] = groups.count }
                groups.append([index])
            }
        }
        return groups
    }
}
