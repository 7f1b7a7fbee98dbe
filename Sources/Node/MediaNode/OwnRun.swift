import ServiceLifecycle
import Synchronization

/// The group `Node.run()` runs, for `Node.shutdown()` to stop; a shutdown asked for before the run
/// starts stops it as soon as it does.
final class OwnRun: Sendable {
    private struct State {
        var group: ServiceGroup?
        var isShutdownRequested = false
    }

    private let state = Mutex(State())
    let stopped = Latch()

    /// Records the running group; true when a shutdown was asked for already.
    func started(_ group: ServiceGroup) -> Bool {
        state.withLock { state in
            state.group = group
            return state.isShutdownRequested
        }
    }

    /// The running group, if any; one that starts later stops at once.
    func shutdownRequested() -> ServiceGroup? {
        state.withLock { state in
            state.isShutdownRequested = true
            return state.group
        }
    }
}
