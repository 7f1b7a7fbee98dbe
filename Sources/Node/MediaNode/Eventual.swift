import Synchronization

/// A value that arrives once, from any thread, possibly before anyone waits for it.
final class Eventual<T: Sendable>: Sendable {
    private let state = Mutex(State())

    private struct State {
        var value: T?
        var waiter: CheckedContinuation<T?, Never>?
        /// The waiter has been answered, or given up before it waited.
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

    /// The value, or nil if it did not arrive within `timeout` or the task was cancelled. Call once.
    func value(within timeout: Duration) async -> T? {
        await withTaskGroup(of: T?.self) { group in
            group.addTask { await self.value() }
            group.addTask {
                await DeadlineSweep.shared.sleep(for: timeout)
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
    }

    /// The value once it arrives; nil when the task is cancelled first.
    private func value() async -> T? {
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let ready = state.withLock { state -> T?? in
                    if let value = state.value {
                        state.isSettled = true
                        return .some(value)
                    }
                    if state.isSettled { return .some(nil) }
                    state.waiter = continuation
                    return .none
                }
                if let ready { continuation.resume(returning: ready) }
            }
        } onCancel: {
            let waiter = state.withLock { state -> CheckedContinuation<T?, Never>? in
                guard !state.isSettled else { return nil }
                state.isSettled = true
                defer { state.waiter = nil }
                return state.waiter
            }
            waiter?.resume(returning: nil)
        }
    }
}
