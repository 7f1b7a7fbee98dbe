import ContentTree
import Foundation

/// Music folders on the node itself: the experience that works with no network and no account (S30).
///
/// Scans are incremental: a file whose size and modification time are unchanged is not opened again, and a
/// scan that finds no change at all stores nothing. Removed files disappear with the next scan.
public struct LocalFolderProvider: CatalogProvider {
    public let source: CatalogSource
    public let roots: [URL]

    public static let audioExtensions: Set<String> = ["ogg", "oga", "flac", "mp3", "m4a", "wav", "opus"]
    public static let coverNames: [String] = ["cover.jpg", "folder.jpg", "cover.png", "folder.png", "front.jpg"]

    /// Called with (files examined, files found) as a scan goes, for progress bars; from the scanning task.
    public let progress: (@Sendable (_ done: Int, _ total: Int) -> Void)?

    public init(roots: [URL], mount: String? = nil, progress: (@Sendable (_ done: Int, _ total: Int) -> Void)? = nil) {
        self.roots = roots.map { $0.standardizedFileURL }
        self.source = CatalogSource(kind: .local, location: self.roots.map(\.path).joined(separator: "\n"), mount: mount)
        self.progress = progress
    }

    public func load(_ context: RefreshContext) async throws -> ProviderResult {
        let previous = try await context.database.localFiles(of: source.identifier)
        let scan = try scanFiles(previous: previous)
        let unchanged = context.syncState.lastSuccessAt != nil && scan.records.count == previous.count
            && scan.records.allSatisfy { record in
                previous[record.path].map { $0.size == record.size && $0.modified == record.modified } ?? false
            }
        if unchanged { return .unchanged(FetchValidators()) }
        var snapshot = LibraryTreeBuilder(source: source).build(records: scan.records)
        for blob in scan.newArtwork { snapshot.addArtwork(blob) }
        snapshot.localFiles = scan.records
        return .content(snapshot, FetchValidators())
    }

    struct Scan {
        var records: [LocalFileRecord] = []
        var newArtwork: [ArtworkBlob] = []
    }

    /// Walks the roots; reads tags only for new or changed files, and cover bytes only for changed covers.
    func scanFiles(previous: [String: LocalFileRecord]) throws -> Scan {
        var scan = Scan()
        let candidates = listCandidates()
        for (index, candidate) in candidates.enumerated() {
            defer { if index % 16 == 15 || index == candidates.count - 1 { progress?(index + 1, candidates.count) } }
            if index % 64 == 63 { try Task.checkCancellation() }
            let (url, path, size, modified, isAudio) = candidate
            if let old = previous[path], old.size == size, old.modified == modified {
                scan.records.append(old)
                continue
            }
            if isAudio {
                // What TagLib cannot read (a multi-stream Ogg, an odd container) is still listed under its
                // file name: GStreamer decides when it plays, and a bad file is skipped with an error then.
                var tags = TagReader.read(path: path) ?? AudioTags()
                if tags.title == nil { tags.title = url.deletingPathExtension().lastPathComponent }
                scan.records.append(LocalFileRecord(path: path, size: size, modified: modified, tags: tags))
            } else if let data = try? Data(contentsOf: url), !data.isEmpty {
                let blob = ArtworkBlob(data: data)
                scan.newArtwork.append(blob)
                scan.records.append(LocalFileRecord(path: path, size: size, modified: modified, artworkKey: blob.key))
            }
        }
        scan.records.sort { $0.path < $1.path }
        return scan
    }

    /// Audio files and cover images under the roots, with size and modification time, listed before any is
    /// read so a progress bar knows the total.
    func listCandidates() -> [(url: URL, path: String, size: Int64, modified: Double, isAudio: Bool)] {
        var found: [(url: URL, path: String, size: Int64, modified: Double, isAudio: Bool)] = []
        let keys: [URLResourceKey] = [.isRegularFileKey, .fileSizeKey, .contentModificationDateKey]
        let covers = Set(Self.coverNames)
        for root in roots {
            guard let walker = FileManager.default.enumerator(
                at: root, includingPropertiesForKeys: keys, options: [.skipsHiddenFiles, .skipsPackageDescendants])
            else { continue }
            for case let url as URL in walker {
                let name = url.lastPathComponent.lowercased()
                let isAudio = Self.audioExtensions.contains(url.pathExtension.lowercased())
                guard isAudio || covers.contains(name) else { continue }
                guard let values = try? url.resourceValues(forKeys: Set(keys)), values.isRegularFile == true else {
                    continue
                }
                found.append((
                    url, url.standardizedFileURL.path, Int64(values.fileSize ?? 0),
                    values.contentModificationDate?.timeIntervalSince1970 ?? 0, isAudio))
            }
        }
        return found
    }
}
