import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A child process its cancellation handler may kill from another thread, and the one wait for it, which
/// its end or the kill ends, whichever comes first.
final class ChildProcess: @unchecked Sendable {
    private let process: Process
    private let lock = NSLock()
    private var waiter: CheckedContinuation<Bool, Never>?
    private var isKilled = false
    private var isRunning = false

    init(_ process: Process) { self.process = process }

    /// Takes the wait; false (and the wait ended) when the task was cancelled before the child started.
    func begin(_ continuation: CheckedContinuation<Bool, Never>) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        guard !isKilled else {
            continuation.resume(returning: false)
            return false
        }
        waiter = continuation
        return true
    }

    /// The child runs; a kill asked for while it started reaches it now.
    func started() {
        lock.lock()
        isRunning = process.isRunning
        let killNow = isKilled && isRunning
        lock.unlock()
        if killNow { Glibc.kill(process.processIdentifier, SIGKILL) }
    }

    func end(finished: Bool) {
        lock.lock()
        let waiter = self.waiter
        self.waiter = nil
        lock.unlock()
        waiter?.resume(returning: finished)
    }

    /// SIGKILL: the child measures at the lowest priority, and on a loaded machine it may wait a second
    /// for the CPU to handle anything else. Foundation reaps it when it has gone.
    func kill() {
        lock.lock()
        isKilled = true
        let running = isRunning
        lock.unlock()
        if running { Glibc.kill(process.processIdentifier, SIGKILL) }
        end(finished: false)
    }
}
