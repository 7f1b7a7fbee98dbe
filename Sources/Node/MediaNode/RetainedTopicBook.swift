import Logging
import Synchronization

/// Keeps the memory of published retained topics in step with the broker, one write per retained flush,
/// so a restarted node knows which deeper tree nodes an earlier run left retained and clears them: the
/// broker keeps a retained message until someone clears it, and a browsed node is not republished at
/// start.
///
/// Threading: `published` and `cleared` may be called from any thread; `flush()` writes what they noted,
/// and is called by the retained publisher after each of its flushes, which also `load`s it first.
final class RetainedTopicBook: Sendable {
    private let memory: any RetainedTopicMemory
    private let logger: Logger
    /// What the earlier run left: read by `load()` before this run writes anything.
    private let previous = Mutex<Set<String>>([])
    private let loaded = Latch()
    private let pending = Mutex<[String: Bool]>([:])

    init(memory: any RetainedTopicMemory, logger: Logger) {
        self.memory = memory
        self.logger = logger
    }

    /// Reads what the earlier run left; the retained publisher calls it first thing in its run.
    func load() async {
        do {
            let topics = try await memory.rememberedRetainedTopics()
            previous.withLock { $0 = topics }
        } catch {
            logger.warning("cannot read which retained topics an earlier run published: \(error)")
        }
        loaded.open()
    }

    /// The retained topics an earlier run published and never cleared.
    func leftovers() async -> Set<String> {
        await loaded.wait()
        return previous.withLock { $0 }
    }

    func published(_ topic: String) { note(topic, isRetained: true) }

    /// Whether a `flush` has anything to write.
    var hasPending: Bool { pending.withLock { !$0.isEmpty } }

    func cleared(_ topic: String) { note(topic, isRetained: false) }

    private func note(_ topic: String, isRetained: Bool) {
        pending.withLock { $0[topic] = isRetained }
    }

    /// Writes what is pending now in one transaction; nothing before the earlier run's topics are read.
    func flush() async {
        await loaded.wait()
        let changes = pending.withLock { pending in
            defer { pending = [:] }
            return pending
        }
        guard !changes.isEmpty else { return }
        let added = Set(changes.filter(\.value).keys)
        let removed = Set(changes.filter { !$0.value }.keys)
        do {
            try await memory.rememberRetainedTopics(added: added, removed: removed)
        } catch {
            // Kept for the next write, unless a newer change to the same topic came meanwhile.
            pending.withLock { pending in pending.merge(changes) { newer, _ in newer } }
            logger.debug("could not record the published retained topics now: \(error)")
        }
    }
}
