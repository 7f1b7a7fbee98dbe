import CatalogStore
import ContentTree
import Foundation
import HTTPTransfer
import Logging
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Keeps local copies of remote audio: a queue worked by a few parallel transfers, each streaming into
/// `partial/` and resuming there with a Range request after a network loss or a restart; a copy is checked
/// (a 2xx answer, audio rather than an error page, the announced length) and renamed into place, so the
/// folder holds only whole copies. Rows in the catalog file say what is queued and what is finished.
///
/// Threading: every method may be called from any task; state is behind one lock and the store is written
/// after each change, so a kill -9 at any moment leaves rows and files that `run()` reconciles.
public final class DownloadManager: Sendable {
    public let directory: URL
    public var partialDirectory: URL { directory.appendingPathComponent("partial", isDirectory: true) }
    let store: any DownloadStore
    let client: HTTPTransferClient
    let parallel: Int
    let idleTimeout: Duration
    let retryDelay: Duration
    let logger: Logger
    /// Everything that changes, behind one lock; the store is written after each change.
    let state = Mutex(State())
    private let wakeStream: AsyncStream<Void>
    let wakeContinuation: AsyncStream<Void>.Continuation
    let eventContinuation: AsyncStream<DownloadEvent>.Continuation
    /// What downloads did; one consumer (the node).
    public let events: AsyncStream<DownloadEvent>

    struct State {
        var records: [String: DownloadRecord] = [:]
        var running: [String: Task<Void, Never>] = [:]
        var progress: [String: Double] = [:]
        var lastReported: [String: ContinuousClock.Instant] = [:]
        var metered = false
        var restored = false
        var quota: Int64 = .max
        var isPlaying: @Sendable (String) -> Bool = { _ in false }
    }

    /// - Parameters:
    ///   - parallel: transfers at once; a car's link is shared with streaming, so few.
    ///   - idleTimeout: the longest silence from a server before the attempt is given up (and retried).
    ///   - retryDelay: how long a download that failed on the network waits before it is tried again.
    public init(directory: URL, store: any DownloadStore, client: HTTPTransferClient = .init(), parallel: Int = 2,
                idleTimeout: Duration = .seconds(30), retryDelay: Duration = .seconds(60),
                logger: Logger = Logger(label: "medianode.downloads")) {
        self.directory = directory
        self.store = store
        self.client = client
        self.parallel = max(1, parallel)
        self.idleTimeout = idleTimeout
        self.retryDelay = retryDelay
        self.logger = logger
        (wakeStream, wakeContinuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        (events, eventContinuation) = AsyncStream.makeStream(of: DownloadEvent.self)
    }

    // MARK: - Reading (from memory, for the tree)

    /// The status of `identifier`'s copy and, while downloading, how far it got (0...1) when the size is known.
    public func status(of identifier: String) -> (DownloadStatus, Double?) {
        state.withLock { state in
            guard let record = state.records[identifier] else { return (.notDownloaded, nil) }
            return (record.status, record.status == .downloading ? state.progress[identifier] : nil)
        }
    }

    /// The finished copy, only when it is whole and in place.
    public func localFile(for identifier: String) -> URL? {
        guard let record = state.withLock({ $0.records[identifier] }), record.status == .downloaded else { return nil }
        let url = directory.appendingPathComponent(record.fileName)
        return FileManager.default.fileExists(atPath: url.path) ? url : nil
    }

    /// Finished copies, newest finished first.
    public func downloaded() -> [DownloadRecord] {
        state.withLock { $0.records.values.filter { $0.status == .downloaded } }
            .sorted { ($0.finishedAt ?? .distantPast, $0.identifier) > ($1.finishedAt ?? .distantPast, $1.identifier) }
    }

    public func record(for identifier: String) -> DownloadRecord? { state.withLock { $0.records[identifier] } }

    /// The containers whose lists show `identifier`.
    public func containers(listing identifier: String) async -> Set<String> {
        (try? await store.containers(listing: identifier)) ?? []
    }

    // MARK: - Requests

    /// Queues a copy of `url` for `identifier`; nothing when one is finished, queued or running. An
    /// explicit request goes ahead on a metered network and brings back an item the listener deleted.
    public func download(identifier: String, url: String, automatic: Bool = false) async throws {
        let record: DownloadRecord? = state.withLock { state in
            if let existing = state.records[identifier] {
                switch existing.status {
                case .downloaded, .queued, .downloading: return nil
                case .notDownloaded where automatic: return nil
                default: break
                }
            }
            var record = DownloadRecord(
                identifier: identifier, url: url, fileName: DownloadRecord.fileName(identifier: identifier, url: url),
                status: .queued, isAutomatic: automatic)
            if let existing = state.records[identifier], existing.url == url { record.bytes = existing.bytes }
            state.records[identifier] = record
            return record
        }
        guard let record else { return }
        try await store.saveDownload(record)
        eventContinuation.yield(.changed(identifier))
        wakeContinuation.yield()
    }

    /// Queues the newest `count` episodes of each feed that have no row yet (an episode the listener deleted
    /// keeps its row, so it is not fetched again); they wait while the network is metered.
    public func autoDownload(newest count: Int) async {
        guard count > 0 else { return }
        do {
            for episode in try await store.newestEpisodes(perFeed: count) where record(for: episode.identifier) == nil {
                try await download(identifier: episode.identifier, url: episode.url, automatic: true)
            }
        } catch is CancellationError {
            // A shutdown: nothing went wrong.
        } catch {
            logger.warning("could not choose episodes to download: \(error)")
        }
    }

    /// Deletes the copy (finished or partial) and stops a running transfer; the row stays as `notDownloaded`
    /// so automatic downloads do not fetch it again.
    public func delete(identifier: String) async throws {
        let (record, task) = state.withLock { state -> (DownloadRecord?, Task<Void, Never>?) in
            guard var record = state.records[identifier] else { return (nil, nil) }
            record.status = .notDownloaded
            record.bytes = 0
            record.finishedAt = nil
            state.records[identifier] = record
            state.progress[identifier] = nil
            return (record, state.running.removeValue(forKey: identifier))
        }
        guard let record else { return }
        task?.cancel()
        await task?.value
        removeFiles(of: record)
        try await store.saveDownload(record)
        await listDownloaded()
        eventContinuation.yield(.changed(identifier))
        wakeContinuation.yield()
    }

    /// While true, automatic downloads wait and a running automatic one stops (to resume with a Range
    /// request later); explicit ones go on.
    public func setMetered(_ metered: Bool) {
        let paused = state.withLock { state -> [Task<Void, Never>] in
            guard state.metered != metered else { return [] }
            state.metered = metered
            guard metered else { return [] }
            let automatic = state.running.keys.filter { state.records[$0]?.isAutomatic == true }
            return automatic.compactMap { state.running.removeValue(forKey: $0) }
        }
        for task in paused { task.cancel() }
        wakeContinuation.yield()
    }

    // MARK: - The run loop

    /// Reconciles the folder with the rows, then works the queue until cancelled.
    public func run() async {
        // In a task of its own, which ends with it: a task keeps the memory of its deepest call stack for as
        // long as it runs (Swift's task allocator frees its slabs only at the end), and this one runs as long
        // as the node. In a rig of 300 nodes, this start had each loop keep about 85 KB.
        await withDiscardingTaskGroup { group in
            group.addTask {
                do {
                    try await self.restore()
                    await self.enforceQuota()
                } catch {
                    self.logger.error("cannot read the downloads from the catalog: \(error)")
                }
            }
        }
        await withTaskCancellationHandler {
            for await _ in wakeStream { startWaiting() }
        } onCancel: {
            wakeContinuation.finish()
        }
        let running = state.withLock { state in defer { state.running = [:] }; return Array(state.running.values) }
        for task in running { task.cancel() }
        for task in running { await task.value }
    }

    /// After a crash: a finished row without its whole file goes back to `notDownloaded`; a file no
    /// finished row names is removed; a partial file no pending row names is removed; what was queued or
    /// running is queued again (its partial file kept for the Range request).
    public func restore() async throws {
        let manager = FileManager.default
        try manager.createDirectory(at: partialDirectory, withIntermediateDirectories: true)
        var records: [String: DownloadRecord] = [:]
        for var record in try await store.downloadRecords() {
            switch record.status {
            case .downloaded:
                let path = directory.appendingPathComponent(record.fileName).path
                let size = (try? manager.attributesOfItem(atPath: path)[.size] as? Int64) ?? nil
                if size != record.bytes {
                    logger.warning("a downloaded copy is missing or damaged; it is no longer offered",
                                   metadata: ["identifier": "\(record.identifier)", "path": "\(path)"])
                    try? manager.removeItem(atPath: path)
                    try await store.deleteDownload(record.identifier)
                    continue
                }
            case .downloading, .failed:
                // Tried again at every start: a failure is often the network of the moment.
                record.status = .queued
                try await store.saveDownload(record)
            default: break
            }
            records[record.identifier] = record
        }
        let finished = Set(records.values.filter { $0.status == .downloaded }.map(\.fileName))
        let pending = Set(records.values.filter { $0.status == .queued }.map { $0.fileName + ".part" })
        for name in (try? manager.contentsOfDirectory(atPath: directory.path)) ?? [] 
            where DownloadRecord.isManagedName(name) && !finished.contains(name) {
            try? manager.removeItem(at: directory.appendingPathComponent(name))
        }
        for name in (try? manager.contentsOfDirectory(atPath: partialDirectory.path)) ?? [] where !pending.contains(name) {
            try? manager.removeItem(at: partialDirectory.appendingPathComponent(name))
        }
        state.withLock { state in
            // A request made while this ran is newer than its row.
            state.records = records.merging(state.records) { _, requested in requested }
            state.restored = true
        }
        for identifier in records.keys { eventContinuation.yield(.changed(identifier)) }
        if !records.isEmpty { await listDownloaded() }
        wakeContinuation.yield()
    }

    /// Brings the Downloads section up to date with the finished copies (and the catalog's rows, after a
    /// refresh); does nothing when it already is.
    public func listDownloaded() async {
        do {
            try await store.listDownloads(downloaded().map(\.identifier))
        } catch is CancellationError {
            // A shutdown: nothing went wrong.
        } catch {
            logger.warning("could not list the downloads in the tree: \(error)")
        }
    }

    /// Starts queued downloads, oldest request first, while fewer than `parallel` run.
    private func startWaiting() {
        state.withLock { state in
            guard state.restored else { return }
            let waiting = state.records.values
                .filter { $0.status == .queued && state.running[$0.identifier] == nil && !(state.metered && $0.isAutomatic) }
                .sorted { ($0.requestedAt, $0.identifier) < ($1.requestedAt, $1.identifier) }
            for record in waiting.prefix(max(0, parallel - state.running.count)) {
                state.records[record.identifier]?.status = .downloading
                state.running[record.identifier] = Task { await self.perform(record) }
            }
        }
    }
}
