import Playback
import Synchronization

/// A clock that moves only when a test says so; sleepers wake when `advance(by:)` passes their
/// deadline. Safe to use from any thread.
public final class ManualPlaybackClock: PlaybackClock {
    private struct Sleeper {
        var deadline: Double
        var continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now: Double
        var nextSleeperID = 0
        var sleepers: [Int: Sleeper] = [:]
    }

    private let state: Mutex<State>

    /// Starts at `start` seconds since the epoch.
    public init(start: Double = 1_700_000_000) {
        state = Mutex(State(now: start))
    }

    public func now() -> Double {
        state.withLock { $0.now }
    }

    /// How many tasks are sleeping on this clock.
    public var sleeperCount: Int {
        state.withLock { $0.sleepers.count }
    }

    /// Moves time forward and wakes every sleeper whose deadline has come, earliest first.
    public func advance(by seconds: Double) {
        let woken = state.withLock { state -> [Sleeper] in
            state.now += seconds
            let due = state.sleepers.filter { $0.value.deadline <= state.now }
            for id in due.keys { state.sleepers[id] = nil }
            return due.values.sorted { $0.deadline < $1.deadline }
        }
        for sleeper in woken { sleeper.continuation.resume() }
    }

    public func sleep(for seconds: Double) async throws {
        let id = state.withLock { state -> Int in
            state.nextSleeperID += 1
            return state.nextSleeperID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let outcome = state.withLock { state -> Result<Void, any Error>? in
                    if Task.isCancelled { return .failure(CancellationError()) }
                    let deadline = state.now + seconds
                    if deadline <= state.now { return .success(()) }
                    state.sleepers[id] = Sleeper(deadline: deadline, continuation: continuation)
                    return nil
                }
                if let outcome { continuation.resume(with: outcome) }
            }
        } onCancel: {
            let sleeper = state.withLock { $0.sleepers.removeValue(forKey: id) }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }
}
