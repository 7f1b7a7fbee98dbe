import CatalogStore

/// Where the node remembers which retained topics it published, across restarts.
public protocol RetainedTopicMemory: Sendable {
    /// The topics recorded as published and not cleared since.
    func rememberedRetainedTopics() async throws -> Set<String>
    /// Records topics published and cleared, together.
    func rememberRetainedTopics(added: Set<String>, removed: Set<String>) async throws
}

extension CatalogDatabase: RetainedTopicMemory {}
