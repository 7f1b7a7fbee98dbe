import Synchronization

/// A value that arrives once, from any thread, possibly before anyone waits for it.
final class Eventual<T: Sendable>: Sendable {
    private let state = Mutex(State())

    private struct State {
        var value: T?
        var waiter: CheckedContinuation<T?, Never>?
        var isSettled = false
    }

    /// Delivers the value; later calls are ignored.
    func resolve(_ value: T) {
        let waiter = state.withLock { state -> CheckedContinuation<T?, Never>? in
            guard !state.isSettled, state.value == nil else { return nil }
            state.value = value
            guard let waiter = state.waiter else { return nil }
            state.isSettled = true
            state.waiter = nil
            return waiter
        }
        waiter?.resume(returning: value)
    }

    /// The value, or nil if it did not arrive within `timeout`. Call once.
    func value(within timeout: Duration) async -> T? {
        await withCheckedContinuation { continuation in
            let ready = state.withLock { state -> T? in
                if let value = state.value {
                    state.isSettled = true
                    return value
                }
                state.waiter = continuation
                return nil
            }
            if let ready {
                continuation.resume(returning: ready)
                return
            }
            Task {
                try? await Task.sleep(for: timeout)
                let late = self.state.withLock { state -> CheckedContinuation<T?, Never>? in
                    guard !state.isSettled else { return nil }
                    state.isSettled = true
                    defer { state.waiter = nil }
                    return state.waiter
                }
                late?.resume(returning: nil)
            }
        }
    }
}
