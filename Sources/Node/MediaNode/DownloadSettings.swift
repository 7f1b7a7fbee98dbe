import Foundation

/// Where local copies go and how many the node keeps by itself (contract 1.1, Downloads).
public struct DownloadSettings: Sendable {
    /// The downloads folder; nil: `downloads` beside the catalog file.
    public var directory: String?
    /// Bytes the finished copies may take.
    public var quota: Int64
    /// Newest episodes of each podcast feed kept downloaded; 0: none.
    public var autoDownload: Int

    public init(directory: String? = nil, quota: Int64 = 2 << 30, autoDownload: Int = 3) {
        self.directory = directory
        self.quota = quota
        self.autoDownload = autoDownload
    }

    /// The folder for a catalog at `databasePath`.
    public func directory(besideDatabase databasePath: String) -> URL {
        if let directory { return URL(fileURLWithPath: directory, isDirectory: true) }
        return URL(fileURLWithPath: databasePath).deletingLastPathComponent().appendingPathComponent("downloads", isDirectory: true)
    }
}
