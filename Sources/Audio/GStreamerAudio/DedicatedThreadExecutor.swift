import Foundation

/// A serial executor that runs every job on one thread of its own.
///
/// GStreamer state changes and flushing seeks block until streaming threads stop; run on Swift's
/// cooperative pool they would starve unrelated tasks (the pool has one thread per core, two here).
/// The engine actor uses this executor, so each of its methods may block without harming anyone else.
///
/// It is a task executor too: a task that prefers it (the node's playback command lane) runs its
/// nonisolated code, and the default actors it calls, on this thread, so a command reaches the engine
/// without waking a cooperative thread and coming back.
final class DedicatedThreadExecutor: SerialExecutor, TaskExecutor, @unchecked Sendable {
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

        /// The thread's body: runs jobs in order until finished and empty. Every job runs isolated to the
        /// serial executor and with the task executor, which is what a job enqueued as either expects.
        func run(serial: UnownedSerialExecutor, task: UnownedTaskExecutor) {
            while true {
                condition.lock()
                while jobs.isEmpty && !isFinished { condition.wait() }
                if jobs.isEmpty { condition.unlock(); return }
                let batch = jobs
                jobs.removeAll(keepingCapacity: true)
                condition.unlock()
                for job in batch { job.runSynchronously(isolatedTo: serial, taskExecutor: task) }
            }
        }
    }

    private let queue = JobQueue()

    init(name: String) {
        // Unowned references: the thread must not keep the executor alive (see `JobQueue`).
        let serial = UnownedSerialExecutor(ordinary: self)
        let task = UnownedTaskExecutor(ordinary: self)
        let thread = Thread { [queue] in queue.run(serial: serial, task: task) }
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
