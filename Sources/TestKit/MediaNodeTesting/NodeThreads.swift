import Foundation
import Testing

/// Threads of its own for a node run inside the test process, as a task executor.
///
/// The daemon has the cooperative pool of its process to itself. A node run in the test process shares
/// that pool (one thread per core) with every test running beside it, and a burst of work in one test
/// (reading a WAV file back, parsing a thousand messages) would delay the node's timers and replies in
/// another. A node started in a task that prefers this executor runs its services here instead.
public final class NodeThreads: TaskExecutor, @unchecked Sendable {
    private final class Jobs: @unchecked Sendable {
        // Guarded by `condition`.
        private let condition = NSCondition()
        private var waiting: [UnownedJob] = []
        private var isFinished = false

        func push(_ job: UnownedJob) {
            condition.lock()
            waiting.append(job)
            condition.signal()
            condition.unlock()
        }

        func finish() {
            condition.lock()
            isFinished = true
            condition.broadcast()
            condition.unlock()
        }

        /// A thread's body: takes jobs one at a time until finished and none are left.
        func run(on executor: UnownedTaskExecutor) {
            while true {
                condition.lock()
                while waiting.isEmpty && !isFinished { condition.wait() }
                if waiting.isEmpty { condition.unlock(); return }
                let job = waiting.removeFirst()
                condition.unlock()
                job.runSynchronously(on: executor)
            }
        }
    }

    private let jobs = Jobs()

    /// - Parameter count: as many threads as the cooperative pool of a process of its own would have.
    public init(name: String, count: Int = ProcessInfo.processInfo.activeProcessorCount) {
        // Unowned: the threads must not keep the executor alive; once it goes, they drain and end.
        let executor = UnownedTaskExecutor(ordinary: self)
        for index in 0..<max(1, count) {
            let thread = Thread { [jobs] in jobs.run(on: executor) }
            thread.name = "\(name).\(index)"
            thread.start()
        }
    }

    deinit { jobs.finish() }

    public func enqueue(_ job: consuming ExecutorJob) {
        jobs.push(UnownedJob(job))
    }
}

/// Runs each test of a suite on threads of its own (a `NodeThreads` executor), for tests that measure real
/// time against audio: their sleeps and awaits resume there, however busy the cooperative pool is with
/// the tests beside them (a catalog import, a WAV read back).
public struct OwnThreadsTrait: TestTrait, SuiteTrait, TestScoping {
    public var isRecursive: Bool { true }

    public func provideScope(for test: Test, testCase: Test.Case?,
                             performing function: @Sendable () async throws -> Void) async throws {
        // The suite itself is only a grouping: its tests are scoped one by one.
        guard testCase != nil else { return try await function() }
        let threads = NodeThreads(name: "medianode.test")
        try await withTaskExecutorPreference(threads) { try await function() }
    }
}

extension Trait where Self == OwnThreadsTrait {
    /// Each test on threads of its own; see `OwnThreadsTrait`.
    public static var ownThreads: Self { OwnThreadsTrait() }
}
