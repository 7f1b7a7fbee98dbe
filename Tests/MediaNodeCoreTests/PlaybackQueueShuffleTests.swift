import Playback
import Testing

@Suite("Playback queue shuffle")
struct PlaybackQueueShuffleTests {
    /// Three albums of 3, 2 and 4 tracks, given in album order, plus one loose track.
    static let items: [QueueItem] =
        (1...3).map { QueueItem(identifier: "a\($0)", uri: "a\($0)", containerIdentifier: "album:a") }
        + (1...2).map { QueueItem(identifier: "b\($0)", uri: "b\($0)", containerIdentifier: "album:b") }
        + (1...4).map { QueueItem(identifier: "c\($0)", uri: "c\($0)", containerIdentifier: "album:c") }
        + [QueueItem(identifier: "loose", uri: "loose")]

    @Test("shuffling items gives a stable order for a seed")
    func stable() {
        var first = PlaybackQueue(items: Self.items, startAt: 0, seed: 42)
        var second = PlaybackQueue(items: Self.items, startAt: 0, seed: 42)
        first.setShuffleMode(.items)
        second.setShuffleMode(.items)
        #expect(first.identifiers == second.identifiers)
        #expect(first.identifiers != Self.items.map(\.identifier))
        #expect(Set(first.identifiers) == Set(Self.items.map(\.identifier)))
        #expect(first.identifiers.count == Self.items.count)
    }

    @Test("a different seed gives a different order")
    func seeds() {
        var first = PlaybackQueue(items: Self.items, startAt: 0, seed: 1)
        var second = PlaybackQueue(items: Self.items, startAt: 0, seed: 2)
        first.setShuffleMode(.items)
        second.setShuffleMode(.items)
        #expect(first.identifiers != second.identifiers)
    }

    @Test("the current item stays current and plays first when shuffle turns on")
    func currentStays() {
        var queue = PlaybackQueue(items: Self.items, startAt: 4, seed: 7)
        queue.setShuffleMode(.items)
        #expect(queue.currentItem?.identifier == "b2")
        #expect(queue.currentIndex == 0)
    }

    @Test("turning shuffle off restores the given order around the current item")
    func unshuffle() {
        var queue = PlaybackQueue(items: Self.items, startAt: 0, seed: 7)
        queue.setShuffleMode(.items)
        queue.advance(.nextTrack)
        queue.advance(.nextTrack)
        let current = queue.currentItem
        queue.setShuffleMode(.off)
        #expect(queue.identifiers == Self.items.map(\.identifier))
        #expect(queue.currentItem == current)
        #expect(queue.currentOriginalIndex == Self.items.firstIndex(of: current!))
    }

    @Test("shuffling collections keeps each container together and in order")
    func collections() {
        var queue = PlaybackQueue(items: Self.items, startAt: 6, seed: 3)
        queue.setShuffleMode(.collections)
        let identifiers = queue.identifiers
        #expect(identifiers.count == Self.items.count)
        // The current container comes first, in its own order; the current item stays current.
        #expect(Array(identifiers.prefix(4)) == ["c1", "c2", "c3", "c4"])
        #expect(queue.currentItem?.identifier == "c2")
        #expect(queue.currentIndex == 1)
        for album in ["a", "b", "c"] {
            let positions = identifiers.indices.filter { identifiers[$0].hasPrefix(album) }
            #expect(positions == Array(positions.first!...positions.last!), "album \(album) is contiguous")
            #expect(positions.map { identifiers[$0] } == positions.indices.map { "\(album)\($0 + 1)" })
        }
    }

    @Test("collection shuffle orders containers differently for different seeds")
    func collectionSeeds() {
        let orders = (0..<8).map { seed -> [String] in
            var queue = PlaybackQueue(items: Self.items, startAt: 0, seed: UInt64(seed))
            queue.setShuffleMode(.collections)
            return queue.identifiers
        }
        #expect(Set(orders).count > 1)
    }

    @Test("adopting the shuffle mode already in force changes nothing (S10)")
    func idempotent() {
        var queue = PlaybackQueue(items: Self.items, startAt: 2, seed: 9)
        let turnedOn = queue.setShuffleMode(.items)
        let order = queue.identifiers
        let again = queue.setShuffleMode(.items)
        #expect(turnedOn)
        #expect(!again)
        #expect(queue.identifiers == order)
        #expect(!PlaybackQueue(items: Self.items).setShuffleModeCopy(.off))
    }

    @Test("switching from items to collections keeps the current item")
    func switchModes() {
        var queue = PlaybackQueue(items: Self.items, startAt: 1, seed: 5)
        queue.setShuffleMode(.items)
        queue.setShuffleMode(.collections)
        #expect(queue.currentItem?.identifier == "a2")
        #expect(Array(queue.identifiers.prefix(3)) == ["a1", "a2", "a3"])
    }

    @Test("a new queue under shuffle starts with the chosen item")
    func replaceUnderShuffle() {
        var queue = PlaybackQueue(items: Self.items, startAt: 0, shuffleMode: .items, seed: 11)
        queue.replaceItems(Self.items, startAt: 7)
        #expect(queue.currentItem?.identifier == "c3")
        #expect(queue.currentIndex == 0)
        #expect(queue.shuffleMode == .items)
    }

    @Test("repeat all wraps through the shuffled order and keeps it")
    func wrapKeepsOrder() {
        var queue = PlaybackQueue(items: Self.items, startAt: 0, repeatMode: .all, shuffleMode: .items, seed: 13)
        let order = queue.identifiers
        var played: [String] = []
        for _ in 0..<(order.count * 2) {
            played.append(queue.currentItem!.identifier)
            queue.advance(.naturalEnd)
        }
        #expect(played == order + order)
    }
}

extension PlaybackQueue {
    /// setShuffleMode on a copy, for one-line checks.
    fileprivate func setShuffleModeCopy(_ mode: ShuffleMode) -> Bool {
        var copy = self
        return copy.setShuffleMode(mode)
    }
}
