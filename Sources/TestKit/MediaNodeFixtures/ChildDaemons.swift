import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The daemons the harness started (brokers, buses) that are still running, killed when the test process
/// exits. A test that ends with its broker still up (stopped from a detached task, or failed before its
/// `stop`) otherwise leaves it running under the process that reaps orphans: on a machine whose first
/// process does not, each run left a few behind.
enum ChildDaemons {
    private static let running = Mutex<Set<pid_t>>([])
    private static let installed = Mutex(false)

    static func started(_ pid: pid_t) {
        installed.withLock { installed in
            guard !installed else { return }
            installed = true
            atexit { ChildDaemons.killAll() }
        }
        _ = running.withLock { $0.insert(pid) }
    }

    static func ended(_ pid: pid_t) {
        _ = running.withLock { $0.remove(pid) }
    }

    private static func killAll() {
        for pid in running.withLock({ $0 }) { Glibc.kill(pid, SIGKILL) }
    }
}
