import CatalogStore
import Logging
import Synchronization

/// Where the node remembers which retained topics it published, across restarts.
public protocol RetainedTopicMemory: Sendable {
    /// The topics recorded as published and not cleared since.
    func rememberedRetainedTopics() async throws -> Set<String>
    /// Records topics published and cleared, together.
    func rememberRetainedTopics(added: Set<String>, removed: Set<String>) async throws
}

extension CatalogDatabase: RetainedTopicMemory {}

/// Keeps the memory of published retained topics in step with the broker, a burst of changes at a time,
/// so a restarted node knows which deeper tree nodes an earlier run left retained and clears them: the
/// broker keeps a retained message until someone clears it, and a browsed node is not republished at
/// start.
///
/// Threading: `published` and `cleared` may be called from any thread; `run()` writes in the background.
final class RetainedTopicBook: Sendable {
    private let memory: any RetainedTopicMemory
    private let logger: Logger
    /// What the earlier run left: read before this run writes anything.
    private let previous: Task<Set<String>, Never>
    private let pending = Mutex<[String: Bool]>([:])
    private let wake: AsyncStream<Void>
    private let wakeContinuation: AsyncStream<Void>.Continuation
    /// How long changes are gathered before one write.
    static let coalescingWindow = Duration.milliseconds(100)

    init(memory: any RetainedTopicMemory, logger: Logger) {
        self.memory = memory
        self.logger = logger
        previous = Task {
            do {
                return try await memory.rememberedRetainedTopics()
            } catch {
                logger.warning("cannot read which retained topics an earlier run published: \(error)")
                return []
            }
        }
        (wake, wakeContinuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    /// The retained topics an earlier run published and never cleared.
    func leftovers() async -> Set<String> { await previous.value }

    func published(_ topic: String) { note(topic, isRetained: true) }

    func cleared(_ topic: String) { note(topic, isRetained: false) }

    private func note(_ topic: String, isRetained: Bool) {
        pending.withLock { $0[topic] = isRetained }
        wakeContinuation.yield()
    }

    /// Writes what changed, one burst at a time, until cancelled; then writes the rest.
    func run() async {
        _ = await previous.value
        for await _ in wake {
            try? await Task.sleep(for: Self.coalescingWindow)
            await write()
            if Task.isCancelled { break }
        }
        await write()
    }

    /// Writes what is pending now, e.g. before shutting down.
    func flush() async { await write() }

    private func write() async {
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
