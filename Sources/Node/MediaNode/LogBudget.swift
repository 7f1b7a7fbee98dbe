import Synchronization

/// How many lines a repeating kind of message may log per window. A client that floods a node with bad
/// commands must not flood its log (and its disk) too: past the budget, lines are counted, not written,
/// and the count is told with the first line of the next window.
final class LogBudget: Sendable {
    private struct State {
        var windowStart: ContinuousClock.Instant
        var written = 0
        var held = 0
    }

    let linesPerWindow: Int
    let window: Duration
    private let state: Mutex<State>

    init(linesPerWindow: Int = 20, window: Duration = .seconds(10), now: ContinuousClock.Instant = .now) {
        self.linesPerWindow = linesPerWindow
        self.window = window
        state = Mutex(State(windowStart: now))
    }

    /// Whether a line may be written now, and how many were held back since the last one written.
    func admit(at now: ContinuousClock.Instant = .now) -> (write: Bool, heldBefore: Int) {
        state.withLock { state in
            if now - state.windowStart >= window {
                state.windowStart = now
                state.written = 0
            }
            guard state.written < linesPerWindow else {
                state.held += 1
                return (false, 0)
            }
            state.written += 1
            defer { state.held = 0 }
            return (true, state.held)
        }
    }
}
