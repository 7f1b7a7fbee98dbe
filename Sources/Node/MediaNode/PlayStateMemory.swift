import CatalogStore

/// Where the play state is kept across restarts (the catalog file).
public protocol PlayStateMemory: Sendable {
    func savedPlayState() async throws -> SavedPlayState?
    func savePlayState(_ saved: SavedPlayState, queueChanged: Bool) async throws
    func savePlayPosition(_ elapsed: Double, savedAt: Double) async throws
}

extension CatalogDatabase: PlayStateMemory {}
