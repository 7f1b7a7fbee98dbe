import Synchronization

/// One at a time, in the order they asked, across suspensions: a lock for async code that never blocks a
/// thread. Uncontended, taking and leaving it costs a lock of a mutex each, and no suspension.
final class TurnLock: Sendable {
    private struct State {
        var isTaken = false
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Mutex(State())

    /// Returns once the caller has the turn; `leave` gives it to the next.
    func take() async {
        let isFree = state.withLock { state in
            guard state.isTaken else {
                state.isTaken = true
                return true
            }
            return false
        }
        if isFree { return }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let goOn = state.withLock { state in
                guard state.isTaken else {
                    state.isTaken = true
                    return true
                }
                state.waiters.append(continuation)
                return false
            }
            if goOn { continuation.resume() }
        }
    }

    func leave() {
        let next = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard !state.waiters.isEmpty else {
                state.isTaken = false
                return nil
            }
            return state.waiters.removeFirst()
        }
        next?.resume()
    }
}
