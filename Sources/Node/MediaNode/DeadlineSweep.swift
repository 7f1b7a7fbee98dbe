import Synchronization

/// Wakes many waits for a deadline from one task, a tick late at most.
///
/// Each `Task.sleep` is a timer in dispatch's heap and a wake of dispatch's timer thread when it fires, and
/// a sleep cancelled early (a reply's time limit when the reply came first) stays in the heap until its
/// deadline. A node makes such waits for every command (a reply's limit, the pause between saves): in a
/// rig of a thousand nodes that was three timers a command and a fifth of the process's task switches.
/// These deadlines are bounds, not schedules, so a look every `tick` is precise enough; the task that looks
/// runs only while someone waits and for `linger` after, so an idle node does not wake for it, and a
/// node answering a command every few seconds does not start a task on the way to each reply (the reply
/// deadline's first look is asked for while the command is routed).
final class DeadlineSweep: Sendable {
    static let shared = DeadlineSweep(tick: .milliseconds(20), linger: .milliseconds(500))
    /// For watchdogs that look a few times a second (a reply's deadline of seconds): in a daemon it wakes
    /// as their own quarter-second sleep did, and in a process of many nodes once for all of them.
    static let coarse = DeadlineSweep(tick: .milliseconds(250), linger: .seconds(10))

    private struct Waiter {
        let deadline: ContinuousClock.Instant
        let continuation: CheckedContinuation<Void, Never>
    }

    private struct Call {
        let deadline: ContinuousClock.Instant
        let body: @Sendable () -> Void
    }

    private struct State {
        var waiters: [UInt64: Waiter] = [:]
        var calls: [UInt64: Call] = [:]
        var nextID: UInt64 = 0
        var isSweeping = false

        var isEmpty: Bool { waiters.isEmpty && calls.isEmpty }
    }

    let tick: Duration
    /// How long the sweep goes on looking once nothing waits, in case something soon does.
    let linger: Duration
    private let state = Mutex(State())

    init(tick: Duration, linger: Duration = .zero) {
        self.tick = tick
        self.linger = linger
    }

    /// Returns at `deadline` (up to a tick later), or at once when the task is cancelled.
    func sleep(until deadline: ContinuousClock.Instant) async {
        let id = state.withLock { state in
            state.nextID += 1
            return state.nextID
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let (goOn, startSweeping) = state.withLock { state -> (Bool, Bool) in
                    guard !Task.isCancelled, deadline > .now else { return (true, false) }
                    state.waiters[id] = Waiter(deadline: deadline, continuation: continuation)
                    defer { state.isSweeping = true }
                    return (false, !state.isSweeping)
                }
                if goOn { continuation.resume() }
                if startSweeping { sweep() }
            }
        } onCancel: {
            state.withLock { $0.waiters.removeValue(forKey: id) }?.continuation.resume()
        }
    }

    func sleep(for duration: Duration) async { await sleep(until: .now + duration) }

    /// Calls `body` on the sweep's task at `deadline` (up to a tick later): for a short look that needs no
    /// task of its own, which would be woken, run and put to sleep again for every deadline.
    /// Returns the call's number for `cancelCall`.
    @discardableResult
    func call(at deadline: ContinuousClock.Instant, _ body: @escaping @Sendable () -> Void) -> UInt64 {
        let (id, startSweeping) = state.withLock { state -> (UInt64, Bool) in
            state.nextID += 1
            state.calls[state.nextID] = Call(deadline: deadline, body: body)
            defer { state.isSweeping = true }
            return (state.nextID, !state.isSweeping)
        }
        if startSweeping { sweep() }
        return id
    }

    /// Forgets a call not made yet, so that the sweep stops as soon as nothing else is due.
    func cancelCall(_ id: UInt64) {
        _ = state.withLock { $0.calls.removeValue(forKey: id) }
    }

    /// The waiters now, for tests.
    var waiting: Int { state.withLock { $0.waiters.count } }

    private func sweep() {
        Task.detached { [self] in
            var goOn = true
            var idleSince: ContinuousClock.Instant?
            while goOn {
                try? await Task.sleep(for: tick)
                let (due, calls) = state.withLock { state in
                    let now = ContinuousClock.now
                    let ids = state.waiters.compactMap { $0.value.deadline <= now ? $0.key : nil }
                    let due = ids.compactMap { state.waiters.removeValue(forKey: $0)?.continuation }
                    let callIDs = state.calls.compactMap { $0.value.deadline <= now ? $0.key : nil }
                    let calls = callIDs.sorted().compactMap { state.calls.removeValue(forKey: $0)?.body }
                    return (due, calls)
                }
                for continuation in due { continuation.resume() }
                for call in calls { call() }
                // Decided after the calls: one may have asked for another.
                goOn = state.withLock { state in
                    if !state.isEmpty {
                        idleSince = nil
                        return true
                    }
                    let now = ContinuousClock.now
                    let since = idleSince ?? now
                    idleSince = since
                    guard now - since >= linger else { return true }
                    state.isSweeping = false
                    return false
                }
            }
        }
    }
}
