import CatalogStore
import ContentTree
import Foundation
import MediaJSON
import RemoteCommands
import ServiceLifecycle

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

// MARK: - download, the events and the local copies

extension Node {
    static func isDownloadable(_ item: ContentItem) -> Bool { ContentItem.isDownloadable(item) }

    func registerDownloadCommands(_ content: NodeContent, downloads: DownloadManager) {
        commandCenter.addHandler(for: .download) { [weak self] request in
            guard let self else { return .failed("the node is shutting down") }
            return await self.download(request, content: content, downloads: downloads)
        }
    }

    func download(_ request: DownloadRequest, content: NodeContent, downloads: DownloadManager) async -> CommandResult {
        let targets: [ContentItem]
        do {
            guard let item = try await content.manager.item(identifier: request.identifier) else {
                return CommandResult(.noSuchContent, message: "no item '\(request.identifier)'")
            }
            if item.isContainer {
                targets = try await playableChildren(of: item).filter(Self.isDownloadable)
                guard !targets.isEmpty else { return .failed("'\(item.identifier)' holds nothing downloadable") }
            } else if Self.isDownloadable(item) {
                targets = [item]
            } else if item.isPlayable, item.isStreamingContent, item.duration == nil {
                return .failed("'\(item.identifier)' is a live stream: there is nothing to download")
            } else if item.isPlayable {
                return .failed("'\(item.identifier)' is a local file: it plays without a network already")
            } else {
                return .failed("'\(item.identifier)' is not playable")
            }
        } catch {
            return .failed("could not read the catalog: \(error)")
        }
        do {
            for target in targets {
                if request.isNegative {
                    try await downloads.delete(identifier: target.identifier)
                } else {
                    try await downloads.download(identifier: target.identifier, url: target.uri ?? "")
                }
            }
        } catch {
            return .failed("could not record the download: \(error)")
        }
        return .success
    }

    func downloadReported(_ event: DownloadEvent) async {
        switch event {
        case let .changed(identifier):
            guard let content, let downloads else { return }
            let containers = await downloads.containers(listing: identifier)
            guard !containers.isEmpty else { return }
            content.mark(CatalogDiff(changedContainers: containers, updatedItems: 1))
        case let .finished(identifier, bytes):
            downloadMetrics.finished.increment()
            downloadMetrics.bytes.increment(by: Int64(bytes))
            publishEvent(["type": "downloadFinished", "identifier": .string(identifier), "bytes": .number(Double(bytes))])
        case let .failed(identifier, message):
            downloadMetrics.failed.increment()
            publishEvent(["type": "downloadFailed", "identifier": .string(identifier), "message": .string(message)])
        }
    }

    /// Follows `networkMetered` in `P/context`: automatic downloads wait while it is true.
    func applyNetworkContext(_ payload: [UInt8]) {
        guard let downloads, let document = try? JSONValue(parsing: payload),
              case let .object(fields) = document, case let .bool(metered)? = fields["networkMetered"] else { return }
        downloads.setMetered(metered)
    }
}

/// What the download service hands on: the Downloads section's status and what the queue reports.
protocol DownloadFollower: Sendable {
    func setSectionStatus(_ reason: EmptyRootReason, for section: String) async
    /// Turns a report of the download queue into an event or a tree update.
    func downloadReported(_ event: DownloadEvent) async
}

extension Node: DownloadFollower {}

/// Works the download queue and turns what it reports into events and tree updates; after a source's
/// refresh, the Downloads section follows the catalog's rows and the newest episodes of each feed are
/// queued (at start too).
struct DownloadService: Service {
    let ready: Latch
    /// Opens once the initial state, the tree's upper levels included, is out.
    let started: Latch
    let downloads: DownloadManager
    let settings: DownloadSettings
    /// The content tree, whose loaded item the quota never deletes.
    let content: NodeContent?
    let catalog: (any ContentCatalog)?
    let follower: any DownloadFollower

    func run() async throws {
        await cancelWhenGracefulShutdown { [ready, started, downloads, settings, content, catalog, follower] in
            downloads.setQuota(settings.quota) { identifier in content?.loadedIdentifier == identifier }
            let newest = settings.autoDownload
            await ready.wait()
            let changes = catalog?.changes()
            await withDiscardingTaskGroup { group in
                group.addTask {
                    // Once the tree is out: its start publishes the upper levels only when it is the first
                    // to read the tree, and the content tree service starts alongside this one.
                    await started.wait()
                    // An empty Downloads section says "no media", not "loading": nothing is on its way.
                    await follower.setSectionStatus(.noMedia, for: ContentItem.Section.downloads)
                    await downloads.run()
                }
                // The section's own changes have no source: no loop.
                group.addTask {
                    guard let changes else { return }
                    // Background work with no hurry: after the start, and after a moment in which a retained
                    // P/context saying the network is metered arrives first.
                    await started.wait()
                    try? await Task.sleep(for: .seconds(2))
                    await downloads.autoDownload(newest: newest)
                    for await diff in changes where !diff.isEmpty && diff.sourceIdentifier != nil {
                        await downloads.listDownloaded()
                        await downloads.autoDownload(newest: newest)
                    }
                }
                group.addTask {
                    for await event in downloads.events { await follower.downloadReported(event) }
                }
            }
        }
    }
}
