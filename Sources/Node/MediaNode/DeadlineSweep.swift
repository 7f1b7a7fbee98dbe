import Synchronization

/// Wakes many waits for a deadline from one task, a tick late at most.
///
/// Each `Task.sleep` is a timer in dispatch's heap and a wake of dispatch's timer thread when it fires, and
/// a sleep cancelled early (a reply's time limit when the reply came first) stays in the heap until its
/// deadline. A node makes such waits for every command (a reply's limit, the pause between saves): in a
/// rig of a thousand nodes that was three timers a command and a fifth of the process's task switches.
/// These deadlines are bounds, not schedules, so a look every `tick` is precise enough; the task that looks
/// runs only while someone waits, so an idle node does not wake for it.
final class DeadlineSweep: Sendable {
    static let shared = DeadlineSweep(tick: .milliseconds(20))

    private struct Waiter {
        let deadline: ContinuousClock.Instant
        let continuation: CheckedContinuation<Void, Never>
    }

    private struct State {
        var waiters: [UInt64: Waiter] = [:]
        var nextID: UInt64 = 0
        var isSweeping = false
    }

    let tick: Duration
    private let state = Mutex(State())

    init(tick: Duration) { self.tick = tick }

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

    /// The waiters now, for tests.
    var waiting: Int { state.withLock { $0.waiters.count } }

    private func sweep() {
        Task.detached { [self] in
            var goOn = true
            while goOn {
                try? await Task.sleep(for: tick)
                let due: [CheckedContinuation<Void, Never>]
                (due, goOn) = state.withLock { state in
                    let now = ContinuousClock.now
                    let ids = state.waiters.compactMap { $0.value.deadline <= now ? $0.key : nil }
                    let due = ids.compactMap { state.waiters.removeValue(forKey: $0)?.continuation }
                    if state.waiters.isEmpty { state.isSweeping = false }
                    return (due, !state.waiters.isEmpty)
                }
                for continuation in due { continuation.resume() }
            }
        }
    }
}
