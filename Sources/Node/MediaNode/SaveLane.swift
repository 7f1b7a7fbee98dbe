import Synchronization

/// One file's saves waiting to be written, and the one writer that writes them: a burst of changes is one
/// transaction, written at once when the last write is an interval old, else when that interval is over.
///
/// Threading: `add` and `look` may be called from anywhere and never wait; writes are serial, whether the
/// loop in `run` or `writePending` makes them, so a newer change is never overwritten by an older one.
final class SaveLane<Changes: Sendable>: Sendable {
    private struct State {
        var pending: Changes?
        /// Taken by the write under way: still the newest known until it is committed.
        var inFlight: Changes?
        /// The loop's wait between two writes, ended by its deadline, by `finish` or by a cancel.
        var waiter: CheckedContinuation<Void, Never>?
        /// Set by `finish`: no more waits between writes.
        var isFinished = false
    }

    private let state = Mutex(State())
    /// Writes one at a time.
    private let writing = TurnLock()
    private let merge: @Sendable (_ older: inout Changes, _ newer: Changes) -> Void
    private let wake: AsyncStream<Void>
    private let wakeContinuation: AsyncStream<Void>.Continuation

    /// - Parameter merge: lays newer changes over older ones, as one write of both would leave the file.
    init(merge: @escaping @Sendable (_ older: inout Changes, _ newer: Changes) -> Void) {
        self.merge = merge
        (wake, wakeContinuation) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(1))
    }

    /// Adds changes to be written with the next write.
    func add(_ changes: Changes) {
        state.withLock { state in
            if state.pending == nil { state.pending = changes } else { merge(&state.pending!, changes) }
        }
        wakeContinuation.yield()
    }

    /// Reads what is pending and what is being written, newest first.
    func look<T>(_ body: (_ pending: Changes?, _ inFlight: Changes?) -> T) -> T {
        state.withLock { body($0.pending, $0.inFlight) }
    }

    /// Writes every change until `finish`, one write per `interval` at most, then what is left. A write that
    /// fails keeps its changes (under any newer ones) for the next try, an interval later.
    func run(interval: Duration, write: @Sendable (Changes) async -> Bool) async {
        var lastWrite: ContinuousClock.Instant?
        for await _ in wake {
            if let lastWrite, lastWrite + interval > .now { await waitUntil(lastWrite + interval) }
            guard look({ pending, _ in pending != nil }) else { continue }
            let written = await writePending(write)
            lastWrite = .now
            if !written { wakeContinuation.yield() }
        }
        _ = await writePending(write)
    }

    /// Ends `run` once it has written what is pending, without waiting out the interval.
    func finish() {
        state.withLock { state in
            state.isFinished = true
            defer { state.waiter = nil }
            return state.waiter
        }?.resume()
        wakeContinuation.finish()
    }

    /// Returns at `deadline`, at `finish` or when the task is cancelled, whichever comes first. Only these
    /// waits are cancelled, never a write: a cancelled write would fail.
    ///
    /// One continuation, ended by a call on the sweep or by `finish`: a race of two child tasks made, ran
    /// and ended both at every write. A wait ended early leaves its call to come; ending a later wait early
    /// only writes that one sooner.
    private func waitUntil(_ deadline: ContinuousClock.Instant) async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let goOn = state.withLock { state in
                    guard !state.isFinished, !Task.isCancelled else { return true }
                    state.waiter = continuation
                    return false
                }
                if goOn { return continuation.resume() }
                DeadlineSweep.shared.call(at: deadline) { [weak self] in self?.endWait() }
            }
        } onCancel: {
            endWait()
        }
    }

    private func endWait() {
        state.withLock { state in
            defer { state.waiter = nil }
            return state.waiter
        }?.resume()
    }

    /// Writes what is pending now, after the write under way; false when it failed.
    @discardableResult
    func writePending(_ write: @Sendable (Changes) async -> Bool) async -> Bool {
        await writing.take()
        defer { writing.leave() }
        guard let changes = state.withLock({ state -> Changes? in
            defer { (state.inFlight, state.pending) = (state.pending, nil) }
            return state.pending
        }) else { return true }
        let written = await write(changes)
        state.withLock { state in
            state.inFlight = nil
            guard !written else { return }
            var kept = changes
            if let newer = state.pending { merge(&kept, newer) }
            state.pending = kept
        }
        return written
    }
}
