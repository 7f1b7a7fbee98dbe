/// Where an item's local copy stands (contract 1.1, Downloads); every content item carries one.
public enum DownloadStatus: String, Sendable, Hashable, Codable, CaseIterable {
    /// Local files and live streams: there is nothing to keep.
    case notDownloadable
    case notDownloaded
    case queued
    /// With a progress 0...1 beside it.
    case downloading
    case downloaded
    case failed
}
