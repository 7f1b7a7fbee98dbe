import ContentTree
import Downloads
import Logging
import RemoteCommands
import ServiceLifecycle

// MARK: - download, the events and the local copies

/// Works the download queue and turns what it reports into events and tree updates; after a source's
/// refresh, the Downloads section follows the catalog's rows and the newest episodes of each feed are
/// queued (at start too). Does what `download` asks.
struct DownloadService: Service {
    let ready: Latch
    /// Opens once the initial state, the tree's upper levels included, is out.
    let started: Latch
    let downloads: DownloadManager
    let settings: DownloadSettings
    /// The content tree, whose loaded item the quota never deletes.
    let content: NodeContent?
    let catalog: (any ContentCatalog)?
    let events: EventPublisher
    let metrics: DownloadMetrics
    let logger: Logger

    static func isDownloadable(_ item: ContentItem) -> Bool { ContentItem.isDownloadable(item) }

    func run() async throws {
        await cancelWhenGracefulShutdown { [self] in
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
                    await content?.setSectionStatus(.noMedia, for: ContentItem.Section.downloads, logger: logger)
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
                    for await event in downloads.events { await reported(event) }
                }
            }
        }
    }

    /// `download`: keeps (or with `isNegative` deletes) the local copies of an item or a container's children.
    func download(_ request: DownloadRequest) async -> CommandResult {
        guard let content else { return .failed("this node has no content tree to download from") }
        let targets: [ContentItem]
        do {
            guard let item = try await content.manager.item(identifier: request.identifier) else {
                return CommandResult(.noSuchContent, message: "no item '\(request.identifier)'")
            }
            if item.isContainer {
                targets = try await content.playableChildren(of: item).filter(Self.isDownloadable)
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

    /// Turns a report of the download queue into an event or a tree update.
    private func reported(_ event: DownloadEvent) async {
        switch event {
        case let .changed(identifier):
            guard let content else { return }
            let containers = await downloads.containers(listing: identifier)
            guard !containers.isEmpty else { return }
            content.mark(CatalogDiff(changedContainers: containers, updatedItems: 1))
        case let .finished(identifier, bytes):
            metrics.finished.increment()
            metrics.bytes.increment(by: Int64(bytes))
            events.publish(.downloadFinished, ["identifier": .string(identifier), "bytes": .number(Double(bytes))])
        case let .failed(identifier, message):
            metrics.failed.increment()
            events.publish(.downloadFailed, ["identifier": .string(identifier), "message": .string(message)])
        }
    }
}
