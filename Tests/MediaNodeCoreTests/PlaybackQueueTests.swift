import Playback
import Testing

/// One row of the queue rules table: from play-order index `from`, operation `operation` under
/// `repeatMode` lands on `expected` (nil: stopped, nothing current).
struct QueueRule: Sendable, CustomTestStringConvertible {
    enum Operation: String, Sendable {
        case endOfItem, nextTrack, previousEarly, previousLate
    }
    var repeatMode: RepeatMode
    var operation: Operation
    var from: Int
    var expected: Int?

    var testDescription: String {
        "repeat \(repeatMode.rawValue), \(operation.rawValue) from \(from) -> \(expected.map(String.init) ?? "stopped")"
    }
}

@Suite("Playback queue rules")
struct PlaybackQueueTests {
    static let rules: [QueueRule] = [
        // End of item (S15).
        .init(repeatMode: .off, operation: .endOfItem, from: 0, expected: 1),
        .init(repeatMode: .off, operation: .endOfItem, from: 3, expected: nil),
        .init(repeatMode: .one, operation: .endOfItem, from: 1, expected: 1),
        .init(repeatMode: .one, operation: .endOfItem, from: 3, expected: 3),
        .init(repeatMode: .all, operation: .endOfItem, from: 2, expected: 3),
        .init(repeatMode: .all, operation: .endOfItem, from: 3, expected: 0),
        // nextTrack: always moves on.
        .init(repeatMode: .off, operation: .nextTrack, from: 1, expected: 2),
        .init(repeatMode: .off, operation: .nextTrack, from: 3, expected: nil),
        .init(repeatMode: .one, operation: .nextTrack, from: 1, expected: 2),
        .init(repeatMode: .one, operation: .nextTrack, from: 3, expected: 0),
        .init(repeatMode: .all, operation: .nextTrack, from: 3, expected: 0),
        // previousTrack within the first 3 s: moves back; at the start, restarts or wraps.
        .init(repeatMode: .off, operation: .previousEarly, from: 2, expected: 1),
        .init(repeatMode: .off, operation: .previousEarly, from: 0, expected: 0),
        .init(repeatMode: .one, operation: .previousEarly, from: 2, expected: 1),
        .init(repeatMode: .one, operation: .previousEarly, from: 0, expected: 3),
        .init(repeatMode: .all, operation: .previousEarly, from: 0, expected: 3),
        // previousTrack after 3 s: restarts the current item.
        .init(repeatMode: .off, operation: .previousLate, from: 2, expected: 2),
        .init(repeatMode: .all, operation: .previousLate, from: 0, expected: 0),
    ]

    static func items(_ count: Int = 4) -> [QueueItem] {
        (0..<count).map { index in
            QueueItem(identifier: "item:\(index)", uri: "file:///\(index).ogg",
                      containerIdentifier: "album:\(index / 2)")
        }
    }

    @Test("queue moves follow the repeat rules under every shuffle mode", arguments: rules, ShuffleMode.allCases)
    func rule(_ rule: QueueRule, shuffle: ShuffleMode) {
        var queue = PlaybackQueue(items: Self.items(), startAt: 0, repeatMode: rule.repeatMode, shuffleMode: shuffle)
        let order = queue.playOrder
        let moved = queue.moveTo(index: rule.from)
        #expect(moved)
        switch rule.operation {
        case .endOfItem: queue.advance(.naturalEnd)
        case .nextTrack: queue.advance(.nextTrack)
        case .previousEarly: _ = queue.previousTrack(position: 2)
        case .previousLate:
            let move = queue.previousTrack(position: 3.5)
            #expect(move == .restartCurrent)
        }
        #expect(queue.currentIndex == rule.expected)
        #expect(queue.currentItem == rule.expected.map { order[$0] })
        #expect(queue.playOrder == order, "moving never reorders")
    }

    @Test("index(after:) predicts what advance does, without moving")
    func prediction() {
        var queue = PlaybackQueue(items: Self.items(), startAt: 3, repeatMode: .one)
        #expect(queue.index(after: .naturalEnd) == 3)
        #expect(queue.index(after: .nextTrack) == 0)
        #expect(queue.currentIndex == 3)
        queue.repeatMode = .off
        #expect(queue.index(after: .naturalEnd) == nil)
    }

    @Test("a queue past its end has no current item but keeps its items")
    func pastTheEnd() {
        var queue = PlaybackQueue(items: Self.items(2), startAt: 1)
        let next = queue.advance(.naturalEnd)
        #expect(next == nil)
        #expect(queue.currentItem == nil)
        #expect(queue.count == 2)
        #expect(queue.summary.index == nil)
        let previous = queue.previousTrack(position: 0)
        #expect(previous == nil)
    }

    @Test("an empty queue has nothing to move to")
    func empty() {
        var queue = PlaybackQueue()
        #expect(queue.isEmpty)
        #expect(queue.currentItem == nil)
        let next = queue.advance(.nextTrack)
        let moved = queue.moveTo(index: 0)
        #expect(next == nil)
        #expect(!moved)
    }

    @Test("removeAll releases every item")
    func removeAll() {
        var queue = PlaybackQueue(items: Self.items(), startAt: 2)
        queue.removeAll()
        #expect(queue.isEmpty)
        #expect(queue.summary == QueueSummary())
    }

    @Test("the summary lists identifiers in play order with the current index")
    func summary() {
        let queue = PlaybackQueue(items: Self.items(3), startAt: 1, repeatMode: .all)
        #expect(queue.summary == QueueSummary(
            identifiers: ["item:0", "item:1", "item:2"], index: 1, repeatMode: .all, shuffleMode: .off))
    }

    @Test("a start index outside the items leaves nothing current")
    func badStart() {
        let queue = PlaybackQueue(items: Self.items(2), startAt: 5)
        #expect(queue.currentItem == nil)
        #expect(queue.count == 2)
    }

    @Test("mode names match the contract")
    func rawValues() {
        #expect(RepeatMode.allCases.map(\.rawValue) == ["off", "one", "all"])
        #expect(ShuffleMode.allCases.map(\.rawValue) == ["off", "items", "collections"])
    }
}
