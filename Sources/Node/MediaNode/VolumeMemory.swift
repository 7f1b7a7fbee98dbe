import CatalogStore

/// Where the listener's volume is kept across restarts (the catalog file). Mute is not kept: a node
/// always starts unmuted.
public protocol VolumeMemory: Sendable {
    func savedVolume() async throws -> Double?
    func saveVolume(_ level: Double) async throws
}

extension CatalogDatabase: VolumeMemory {}
