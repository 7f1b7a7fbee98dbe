import Foundation
import Synchronization

/// Opens once; everyone waiting, and everyone who asks later, goes on from then.
final class Latch: Sendable {
    private struct State {
        var isOpen = false
        var waiters: [UInt64: CheckedContinuation<Void, Never>] = [:]
        var nextWaiter: UInt64 = 0
    }

    private let state = Mutex(State())

    func open() {
        let waiters = state.withLock { state in
            state.isOpen = true
            defer { state.waiters = [:] }
            return state.waiters
        }
        for waiter in waiters.values { waiter.resume() }
    }

    /// Returns once open, or at once when the task is cancelled.
    ///
    /// An open latch is asked on every flush of the retained topics: that answer takes one lock. A waiter's
    /// key is a number, not a UUID, which Foundation makes by opening and reading /dev/urandom.
    func wait() async {
        guard let id = state.withLock({ state -> UInt64? in
            guard !state.isOpen else { return nil }
            state.nextWaiter += 1
            return state.nextWaiter
        }) else { return }
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let goOn = state.withLock { state in
                    guard !state.isOpen, !Task.isCancelled else { return true }
                    state.waiters[id] = continuation
                    return false
                }
                if goOn { continuation.resume() }
            }
        } onCancel: {
            state.withLock { $0.waiters.removeValue(forKey: id) }?.resume()
        }
    }
}
