import Foundation
import Synchronization

/// Counts the playback commands between their arrival and their reply, so that work a command sets off
/// but nobody waits for (saving the position on pause) can start once the reply is on its way instead of
/// competing with it for the two cores.
final class CommandFence: Sendable {
    private struct State {
        var inFlight = 0
        var waiters: [UUID: CheckedContinuation<Void, Never>] = [:]
    }

    private let state = Mutex(State())

    func enter() { state.withLock { $0.inFlight += 1 } }

    func leave() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.inFlight -= 1
            guard state.inFlight == 0 else { return [] }
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Returns once no playback command waits for its reply, or after `limit` (a slow command, such as a
    /// seek waiting for its preroll, must not hold back what follows for long).
    func waitUntilClear(atMost limit: Duration = .milliseconds(500)) async {
        guard state.withLock({ $0.inFlight > 0 }) else { return }
        let id = UUID()
        let timer = Task {
            try? await Task.sleep(for: limit)
            state.withLock { $0.waiters.removeValue(forKey: id) }?.resume()
        }
        await withCheckedContinuation { continuation in
            let clear = state.withLock { state in
                guard state.inFlight > 0 else { return true }
                state.waiters[id] = continuation
                return false
            }
            if clear { continuation.resume() }
        }
        timer.cancel()
    }
}
