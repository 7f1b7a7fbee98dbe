import Foundation
import Synchronization

/// How far the retained state shows the controller's snapshots, by their numbers (see
/// `PlaybackController.latestSnapshot`): the now-playing service moves it on once it has marked what a
/// snapshot shows, and a reply waits here until it has got as far as the controller, so the reply never
/// overtakes the state its command changed.
final class ShownSnapshots: Sendable {
    private struct State {
        var shown: UInt64 = 0
        var waiters: [UInt64: (number: UInt64, continuation: CheckedContinuation<Void, Never>)] = [:]
        var nextWaiter: UInt64 = 0
    }

    private let state = Mutex(State())
    /// How to mark the newest snapshot's state, once the now-playing service runs (see `showNewest`).
    private let shower = Mutex<(@Sendable () async -> Void)?>(nil)

    /// The now-playing service hands over how it marks the newest snapshot's state: from then on a command's
    /// lane marks it itself before its reply, with no hop to that service and back.
    func install(_ show: @escaping @Sendable () async -> Void) { shower.withLock { $0 = show } }

    /// Marks the newest snapshot's state now, on the caller's task, unless that is done already; false while
    /// the now-playing service has not handed over how (then `wait` for it).
    func showNewest() async -> Bool {
        guard let show = shower.withLock({ $0 }) else { return false }
        await show()
        return true
    }

    /// The number of the newest snapshot whose state is marked.
    var number: UInt64 { state.withLock { $0.shown } }

    /// The state of every snapshot up to `number` is marked (a newer one's is marked in place of older ones).
    func advance(to number: UInt64) {
        let ready = state.withLock { state in
            state.shown = max(state.shown, number)
            let ready = state.waiters.filter { $0.value.number <= state.shown }
            for id in ready.keys { state.waiters.removeValue(forKey: id) }
            return ready.values.map(\.continuation)
        }
        for waiter in ready { waiter.resume() }
    }

    /// Returns once snapshot `number` is shown; after `limit` at most, so a follower held up (by a slow
    /// disk) never holds a reply past its deadline, or at once when the task is cancelled. True when it is
    /// shown. The limit is a call on the shared sweep, not a task of its own: this wait is on the way to
    /// replies and to the followers of every snapshot a command's lane marks.
    @discardableResult
    func wait(for number: UInt64, atMost limit: Duration) async -> Bool {
        if self.number >= number { return true }
        let id = state.withLock { state in
            state.nextWaiter += 1
            return state.nextWaiter
        }
        let expiry = Mutex<UInt64?>(nil)
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let goOn = state.withLock { state in
                    guard state.shown < number, !Task.isCancelled else { return true }
                    state.waiters[id] = (number, continuation)
                    return false
                }
                if goOn { return continuation.resume() }
                let call = DeadlineSweep.shared.call(at: .now + limit) { [self] in
                    state.withLock { $0.waiters.removeValue(forKey: id) }?.continuation.resume()
                }
                expiry.withLock { $0 = call }
            }
        } onCancel: {
            state.withLock { $0.waiters.removeValue(forKey: id) }?.continuation.resume()
        }
        if let call = expiry.withLock({ $0 }) { DeadlineSweep.shared.cancelCall(call) }
        return self.number >= number
    }

    // MARK: - A command's lane marking its own state

    /// Playback commands being performed on their lane, which marks the state they make itself before
    /// its reply (see `laneBegins`).
    private let lanesMarking = Atomic<Int>(0)

    /// A command's lane is about to change playback and then mark the newest snapshot's state itself: until
    /// `laneEnds`, the observers' loop leaves that marking to it, so the two do not take turns on the same
    /// work, which costs the reply a hop to the loop's thread and back.
    func laneBegins() { lanesMarking.add(1, ordering: .sequentiallyConsistent) }

    /// The lane has marked what its command made; `showNewest` after this marks what was made meanwhile.
    func laneEnds() { lanesMarking.subtract(1, ordering: .sequentiallyConsistent) }

    /// Whether a command's lane will mark the newest snapshot's state (read after the snapshot's number).
    var isLaneMarking: Bool { lanesMarking.load(ordering: .sequentiallyConsistent) > 0 }
}
