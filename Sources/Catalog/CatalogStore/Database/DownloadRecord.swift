import ContentTree
import Foundation

/// One item's download as the catalog file keeps it, so a restart knows what is on disk and what to resume.
public struct DownloadRecord: Sendable, Hashable {
    public var identifier: String
    /// Where the audio comes from.
    public var url: String
    /// The copy's name in the downloads folder (and, with `.part`, in its `partial/` folder).
    public var fileName: String
    /// `queued`, `downloading`, `downloaded`, `failed`; `notDownloaded` once the listener deleted the copy,
    /// so automatic downloads leave the item alone.
    public var status: DownloadStatus
    /// The finished copy's size; for a running download, what the last save saw.
    public var bytes: Int64
    /// Why the last attempt failed.
    public var message: String?
    /// Started by the policy rather than by a `download` command: waits while the network is metered.
    public var isAutomatic: Bool
    public var requestedAt: Date
    public var finishedAt: Date?

    public init(identifier: String, url: String, fileName: String, status: DownloadStatus, bytes: Int64 = 0,
                message: String? = nil, isAutomatic: Bool = false, requestedAt: Date = Date(), finishedAt: Date? = nil) {
        self.identifier = identifier
        self.url = url
        self.fileName = fileName
        self.status = status
        self.bytes = bytes
        self.message = message
        self.isAutomatic = isAutomatic
        self.requestedAt = requestedAt
        self.finishedAt = finishedAt
    }

    /// A name that is stable for an identifier, safe in a folder and keeps the audio's extension (GStreamer's
    /// type finding does not need it, but a person looking at the folder does).
    public static func fileName(identifier: String, url: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in identifier.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        let digits = String(hash, radix: 16)
        let name = String(repeating: "0", count: 16 - digits.count) + digits
        let ext = URL(string: url)?.pathExtension.lowercased() ?? ""
        let safe = !ext.isEmpty && ext.count <= 5 && ext.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) }
        return safe ? "\(name).\(ext)" : "\(name).audio"
    }
}

extension DownloadRecord {
    /// Whether `name` is one `fileName` makes: only such files are ever removed from the folder, whatever
    /// else a listener keeps there.
    public static func isManagedName(_ name: String) -> Bool {
        let parts = name.split(separator: ".", maxSplits: 1)
        return parts.count == 2 && parts[0].count == 16 && parts[0].allSatisfy(\.isHexDigit)
    }
}

/// Where download rows are kept: the catalog file, so what is on disk and what the catalog says can be
/// made to agree after any crash.
public protocol DownloadStore: Sendable {
    func downloadRecords() async throws -> [DownloadRecord]
    func saveDownload(_ record: DownloadRecord) async throws
    func deleteDownload(_ identifier: String) async throws
    /// How far a running download got (0...1), for the tree; nil when the size is unknown.
    func saveDownloadProgress(_ identifier: String, progress: Double?) async throws
    /// The containers whose lists show `identifier`, to republish when its status changes.
    func containers(listing identifier: String) async throws -> Set<String>
    /// The newest `count` remote episodes of each podcast feed, for automatic downloads.
    func newestEpisodes(perFeed count: Int) async throws -> [(identifier: String, url: String)]
    /// Which of `identifiers` were played to the end, with their publication dates (quota eviction goes
    /// through them first).
    func playedToEnd(among identifiers: [String]) async throws -> [String: String?]
    /// Lists the finished copies (newest first) in the tree's Downloads section.
    func listDownloads(_ identifiers: [String]) async throws
}
