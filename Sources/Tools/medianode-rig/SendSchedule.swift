import Foundation
import Synchronization

/// When each node's next command is due, kept by one thread for the whole rig.
///
/// A `Task.sleep` per command is a timer in dispatch's heap: its timer thread is woken to take each new
/// deadline and again when it fires, two task switches for every command the rig sends (a thousand a second).
/// Here a deadline is an entry in a heap, and one thread looks at most once a millisecond and resumes the
/// senders whose time has come. A send leaves up to a millisecond late (the generator lag counts it).
final class SendSchedule: Sendable {
    static let shared = SendSchedule()
    static let granularity: Duration = .milliseconds(1)

    private struct Entry {
        var due: ContinuousClock.Instant
        var order: UInt64
        var continuation: CheckedContinuation<Void, Never>
    }

    private struct State {
        /// A binary min-heap by `due`, then by order of arrival.
        var heap: [Entry] = []
        var arrivals: UInt64 = 0
        var isRunning = false

        mutating func push(_ entry: Entry) {
            heap.append(entry)
            var child = heap.count - 1
            while child > 0 {
                let parent = (child - 1) / 2
                guard Self.precedes(heap[child], heap[parent]) else { break }
                heap.swapAt(child, parent)
                child = parent
            }
        }

        mutating func popDue(at now: ContinuousClock.Instant) -> [CheckedContinuation<Void, Never>] {
            var due: [CheckedContinuation<Void, Never>] = []
            while let first = heap.first, first.due <= now {
                due.append(first.continuation)
                let last = heap.removeLast()
                guard !heap.isEmpty else { break }
                heap[0] = last
                var parent = 0
                while true {
                    let left = 2 * parent + 1, right = left + 1
                    var smallest = parent
                    if left < heap.count, Self.precedes(heap[left], heap[smallest]) { smallest = left }
                    if right < heap.count, Self.precedes(heap[right], heap[smallest]) { smallest = right }
                    guard smallest != parent else { break }
                    heap.swapAt(parent, smallest)
                    parent = smallest
                }
            }
            return due
        }

        static func precedes(_ a: Entry, _ b: Entry) -> Bool {
            a.due < b.due || (a.due == b.due && a.order < b.order)
        }
    }

    private let state = Mutex(State())

    /// Returns at `due`, up to `granularity` and a thread's wake-up later. Not cancellable: the senders
    /// end by their own deadline, which this never passes by more than that.
    func sleep(until due: ContinuousClock.Instant) async {
        guard due > .now else { return }
        await withCheckedContinuation { continuation in
            let start = state.withLock { state -> Bool in
                state.arrivals += 1
                state.push(Entry(due: due, order: state.arrivals, continuation: continuation))
                defer { state.isRunning = true }
                return !state.isRunning
            }
            if start { startThread() }
        }
    }

    private func startThread() {
        let thread = Thread { [self] in
            while true {
                let due = state.withLock { $0.popDue(at: .now) }
                for continuation in due { continuation.resume() }
                Thread.sleep(forTimeInterval: 0.001)
            }
        }
        thread.name = "rig-send-schedule"
        thread.start()
    }
}
