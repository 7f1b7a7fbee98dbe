import Foundation

/// A serial executor that runs every job on one thread of its own.
///
/// GStreamer state changes and flushing seeks block until streaming threads stop; run on Swift's
/// cooperative pool they would starve unrelated tasks (the pool has one thread per core, two here).
/// The engine actor uses this executor, so each of its methods may block without harming anyone else;
/// the playback controller shares it (see `AudioEngine.sharedExecutor`).
final class DedicatedThreadExecutor: SerialExecutor, @unchecked Sendable {
    /// The job list shared with the thread. Kept apart from the executor so the thread does not keep the
    /// executor alive: when the executor goes away, the thread drains and ends.
    private final class JobQueue: @unchecked Sendable {
        // Guarded by `condition`.
        private let condition = NSCondition()
        private var jobs: [UnownedJob] = []
        private var isFinished = false

        func push(_ job: UnownedJob) {
            condition.lock()
            jobs.append(job)
            condition.signal()
            condition.unlock()
        }

        func finish() {
            condition.lock()
            isFinished = true
            condition.signal()
            condition.unlock()
        }

        /// The thread's body: runs jobs in order until finished and empty.
        func run(serial: UnownedSerialExecutor) {
            while true {
                condition.lock()
                while jobs.isEmpty && !isFinished { condition.wait() }
                if jobs.isEmpty { condition.unlock(); return }
                let batch = jobs
                jobs.removeAll(keepingCapacity: true)
                condition.unlock()
                for job in batch { job.runSynchronously(on: serial) }
            }
        }
    }

    private let queue = JobQueue()

    init(name: String) {
        // Unowned references: the thread must not keep the executor alive (see `JobQueue`).
        let serial = UnownedSerialExecutor(ordinary: self)
        let thread = Thread { [queue] in queue.run(serial: serial) }
        thread.name = name
        thread.start()
    }

    deinit { queue.finish() }

    func enqueue(_ job: consuming ExecutorJob) {
        queue.push(UnownedJob(job))
    }

    func asUnownedSerialExecutor() -> UnownedSerialExecutor {
        UnownedSerialExecutor(ordinary: self)
    }
}
