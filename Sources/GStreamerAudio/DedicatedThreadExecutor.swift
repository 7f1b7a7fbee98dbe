import Foundation

/// A serial executor that runs every job on one thread of its own.
///
/// GStreamer state changes and flushing seeks block until streaming threads stop; run on Swift's
/// cooperative pool they would starve unrelated tasks (the pool has one thread per core, two here).
/// The engine actor uses this executor, so each of its methods may block without harming anyone else.
final class DedicatedThreadExecutor: SerialExecutor, @unchecked Sendable {
    /// The job list shared with the thread. Kept apart from the executor so the thread does not keep the
    /// executor alive: when the executor goes away, the thread drains and ends.
    private final class JobQueue: @unchecked Sendable {
        // Guarded by `condition`.
        private let condition = NSCondition()
        private var jobs: [(UnownedJob, UnownedSerialExecutor)] = []
        private var isFinished = false

        func push(_ job: UnownedJob, on executor: UnownedSerialExecutor) {
            condition.lock()
            jobs.append((job, executor))
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
        func run() {
            while true {
                condition.lock()
                while jobs.isEmpty && !isFinished { condition.wait() }
                if jobs.isEmpty { condition.unlock(); return }
                let batch = jobs
                jobs.removeAll(keepingCapacity: true)
                condition.unlock()
                for (job, executor) in batch { job.runSynchronously(on: executor) }
            }
        }
    }

    private let queue = JobQueue()

    init(name: String) {
        let thread = Thread { [queue] in queue.run() }
        thread.name = name
        thread.start()
    }

    deinit { queue.finish() }

    func enqueue(_ job: consuming ExecutorJob) {
        queue.push(UnownedJob(job), on: asUnownedSerialExecutor())
    }

    func asUnownedSerialExecutor() -> UnownedSerialExecutor {
        UnownedSerialExecutor(ordinary: self)
    }
}
