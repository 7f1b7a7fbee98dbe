/// Operations that must not interleave across their suspensions: each runs alone, in arrival order.
///
/// An actor alone does not give that: while one operation awaits the engine, the actor runs the next. Held
/// by the actor whose operations take turns, and used only from its isolation (the type is not `Sendable`,
/// so the compiler keeps it there); `exclusively` runs on the caller's actor.
final class Turns {
    private var isTaken = false
    private var waiters: [CheckedContinuation<Void, Never>] = []

    /// Runs `body` alone: operations queue up in arrival order.
    nonisolated(nonsending) func exclusively<T>(_ body: nonisolated(nonsending) () async -> T) async -> T {
        if isTaken {
            await withCheckedContinuation { waiters.append($0) }
        } else {
            isTaken = true
        }
        defer {
            if waiters.isEmpty { isTaken = false } else { waiters.removeFirst().resume() }
        }
        return await body()
    }
}
