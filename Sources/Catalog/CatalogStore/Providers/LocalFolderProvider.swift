import ContentTree
import Foundation
import Synchronization

/// Music folders on the node itself: the experience that works with no network and no account (S30).
///
/// Scans are incremental: a file whose size and modification time are unchanged is not opened again, and a
/// scan that finds no change at all stores nothing. Removed files disappear with the next scan.
public struct LocalFolderProvider: CatalogProvider {
    public let source: CatalogSource
    public let roots: [URL]

    public static let audioExtensions: Set<String> = ["ogg", "oga", "flac", "mp3", "m4a", "m4b", "wav", "opus"]
    public static let coverNames: [String] = ["cover.jpg", "folder.jpg", "cover.png", "folder.png", "front.jpg"]

    /// Called with (files examined, files found) as a scan goes, for progress bars; from the scanning task.
    public let progress: (@Sendable (_ done: Int, _ total: Int) -> Void)?

    /// Asked for the tags of an audio file TagLib cannot read (a misnamed file, a container TagLib does not
    /// know); without one such a file is listed under its name. The daemon gives GStreamer's discoverer.
    public let fallbackReader: (any TagReader)?

    public init(
        roots: [URL], mount: String? = nil, fallbackReader: (any TagReader)? = nil,
        progress: (@Sendable (_ done: Int, _ total: Int) -> Void)? = nil
    ) {
        self.roots = roots.map { $0.standardizedFileURL }
        self.source = CatalogSource(kind: .local, location: self.roots.map(\.path).joined(separator: "\n"), mount: mount)
        self.fallbackReader = fallbackReader
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
        snapshot.problems = scan.problems
        return .content(snapshot, FetchValidators())
    }

    struct Scan {
        var records: [LocalFileRecord] = []
        var newArtwork: [ArtworkBlob] = []
        /// What was wrong in the files read this time (bad chapter data), one line each.
        var problems: [String] = []
    }

    /// Files read in parallel per batch; between batches the scan reports progress and honours cancellation.
    static let batchSize = 256

    /// Walks the roots; reads tags only for new or changed files (on every core), and cover bytes only for
    /// changed covers.
    func scanFiles(previous: [String: LocalFileRecord]) throws -> Scan {
        var scan = Scan()
        let candidates = listCandidates()
        var toRead: [Candidate] = []
        for candidate in candidates {
            if let old = previous[candidate.path], old.size == candidate.size, old.modified == candidate.modified {
                scan.records.append(old)
            } else {
                toRead.append(candidate)
            }
        }
        var done = scan.records.count
        progress?(done, candidates.count)
        var start = 0
        while start < toRead.count {
            try Task.checkCancellation()
            let batch = Array(toRead[start..<min(toRead.count, start + Self.batchSize)])
            for result in Self.read(batch, fallback: fallbackReader) {
                scan.records.append(result.record)
                if let blob = result.artwork { scan.newArtwork.append(blob) }
                if let problem = result.problem { scan.problems.append(problem) }
            }
            start += batch.count
            done += batch.count
            progress?(done, candidates.count)
        }
        scan.records.sort { $0.path < $1.path }
        return scan
    }

    /// Reads a batch of files concurrently; results keep the batch's order. A cover that cannot be read is left
    /// out. An audio file's embedded picture comes back as its artwork.
    static func read(_ batch: [Candidate], fallback: (any TagReader)?) -> [FileRead] {
        let results = Mutex([FileRead?](repeating: nil, count: batch.count))
        DispatchQueue.concurrentPerform(iterations: batch.count) { index in
            let result = read(batch[index], fallback: fallback)
            results.withLock { $0[index] = result }
        }
        return results.withLock { $0.compactMap { $0 } }
    }

    /// What reading one file gave: its record, its picture, and what was wrong with its chapters.
    struct FileRead {
        var record: LocalFileRecord
        var artwork: ArtworkBlob?
        var problem: String?
    }

    static func read(_ candidate: Candidate, fallback: (any TagReader)?) -> FileRead? {
        let path = candidate.path
        if candidate.isAudio {
            // TagLib first; the fallback (GStreamer's discoverer) for what TagLib cannot read. What neither can read (a
            // truncated file, an odd container) is still listed under its file name: GStreamer decides when
            // it plays, and a bad file is skipped with an error then.
            let read = TagLibReader.readWithArtwork(path: path)
            var tags = read?.tags ?? fallback?.read(path: path) ?? AudioTags()
            if tags.title == nil {
                tags.title = LocalPath.displayName(LibraryTreeBuilder.dropExtension(LibraryTreeBuilder.split(path).name))
            }
            let artwork = read?.artwork
            // Checked once here, when the file is read: an unchanged file is not read again, so its problem is
            // logged once.
            var problem: String?
            if let chapters = tags.chapters {
                let checked = ContentChapter.validated(chapters, duration: tags.duration)
                tags.chapters = checked.chapters.isEmpty ? nil : checked.chapters
                problem = checked.problem.map { "\(path): \($0)" }
            }
            let record = LocalFileRecord(
                path: path, size: candidate.size, modified: candidate.modified, tags: tags, artworkKey: artwork?.key)
            return FileRead(record: record, artwork: artwork, problem: problem)
        }
        // A cover file that is not a JPEG or PNG is no cover: the tree must not name a picture it cannot show.
        guard let data = LocalPath.contents(of: path), let blob = ArtworkBlob.publishable(data) else { return nil }
        let record = LocalFileRecord(
            path: path, size: candidate.size, modified: candidate.modified, artworkKey: blob.key)
        return FileRead(record: record, artwork: blob)
    }
}
