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

extension ContentItem {
    /// Whether the item can have a local copy: remote audio that ends (not a live stream, not a local file).
    public static func isDownloadable(_ item: ContentItem) -> Bool {
        guard item.isPlayable, !item.isContainer, let uri = item.uri?.lowercased(),
              uri.hasPrefix("http://") || uri.hasPrefix("https://") else { return false }
        return !(item.isStreamingContent && item.duration == nil)
    }

    /// What the tree shows: nothing for a container (it has no status of its own), else the row's status,
    /// or `notDownloaded` / `notDownloadable` without one.
    public var shownDownloadStatus: DownloadStatus? {
        if isContainer { return nil }
        if let downloadStatus { return downloadStatus }
        return Self.isDownloadable(self) ? .notDownloaded : .notDownloadable
    }
}
