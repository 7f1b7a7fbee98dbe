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
    ///
    /// The time limit is a call on the sweep, not a second child task racing the first: every playItem
    /// waits here, and the race cost two tasks made, run and ended each time.
    func value(within timeout: Duration) async -> T? {
        let limit = DeadlineSweep.shared.call(at: .now + timeout) { [weak self] in self?.giveUp() }
        defer { DeadlineSweep.shared.cancelCall(limit) }
        return await value()
    }

    /// The time ran out, or the task was cancelled: a waiter gets nil, and a value that comes later is ignored.
    private func giveUp() {
        let waiter = state.withLock { state -> CheckedContinuation<T?, Never>? in
            guard !state.isSettled else { return nil }
            state.isSettled = true
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: nil)
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
            giveUp()
        }
    }
}
