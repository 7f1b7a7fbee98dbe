import Foundation

extension Process {
    /// Returns once the process has ended, polling instead of blocking a thread in `waitUntilExit`: the
    /// cooperative pool has one thread per core, and a test blocked in it stalls the tests beside it.
    public func exited() async {
        while isRunning { try? await Task.sleep(for: .milliseconds(5)) }
    }
}

/// Runs blocking work (a read from a child's pipe) on a thread of its own and awaits its result, so that
/// the work never holds one of the cooperative pool's few threads.
public func onOwnThread<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        let thread = Thread { continuation.resume(with: Result(catching: work)) }
        thread.start()
    }
}
