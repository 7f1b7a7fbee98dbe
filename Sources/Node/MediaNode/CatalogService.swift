import CatalogStore
import ContentTree
import Foundation
import Logging
import MediaJSON
import ServiceLifecycle

/// Keeps the catalog cache filled in the background: the node serves whatever the cache holds from the
/// first moment (S26, S29, S30), while this service scans `--library` folders and refreshes `--catalog`
/// URLs, each on its own schedule, and says what happened on `P/events` and in `P/info`.
///
/// Each refresh swaps a source's content in one transaction or not at all, and the store hands its diff
/// to `ContentCatalog.changes()`, so the content tree republishes only what changed (S27).
public struct CatalogService: Service {
    let node: any CatalogObserver
    public let database: CatalogDatabase
    public let settings: CatalogRefreshSettings
    let providers: [any CatalogProvider]
    let probe: ReachabilityProbe
    let statuses: SourceStatusBook
    let logger: Logger

    /// - Parameters:
    ///   - node: the node it reports to.
    ///   - libraries: folders scanned together as one local source.
    ///   - catalogs: remote catalog locations; one that cannot be understood is reported and skipped.
    ///   - fetcher: the network client; the standard one (HTTP and files) unless a test supplies another.
    ///   - tagReader: reads the library files TagLib cannot (the daemon gives `DiscovererTagReader`); without
    ///     one they are listed under their file names.
    public init(
        node: any CatalogObserver, database: CatalogDatabase, libraries: [String], catalogs: [String],
        settings: CatalogRefreshSettings = CatalogRefreshSettings(), fetcher: (any CatalogFetcher)? = nil,
        tagReader: (any TagReader)? = nil, logger: Logger = Logger(label: "medianode.catalog.service")
    ) {
        self.node = node
        self.database = database
        self.settings = settings
        self.logger = logger
        let probe = ReachabilityProbe(fetcher ?? StandardCatalogFetcher(limits: settings.fetchLimits))
        self.probe = probe
        var providers: [any CatalogProvider] = []
        if !libraries.isEmpty {
            providers.append(LocalFolderProvider(roots: libraries.map { URL(fileURLWithPath: $0) }, fallbackReader: tagReader))
        }
        for location in catalogs {
            do {
                providers.append(try RemoteCatalogProvider(location: location, fetcher: probe, policy: settings.policy))
            } catch {
                logger.error("ignoring --catalog \(location): \(error)")
                node.publishEvent(.error, ["source": .string(location), "message": .string("\(error)")])
            }
        }
        self.providers = providers
        statuses = SourceStatusBook(providers.map(\.source))
    }

    public func run() async throws {
        await cancelWhenGracefulShutdown {
            // The node serves the cache first; checking and refreshing it would only slow that down.
            await node.waitUntilStarted()
            await forgetUnconfiguredSources()
            await withDiscardingTaskGroup { group in
                group.addTask { await verifyCatalog() }
                for provider in providers {
                    group.addTask { await keepRefreshing(provider) }
                }
            }
            // A service that returns early would end the whole group: with no sources, wait for shutdown.
            while !Task.isCancelled { try? await Task.sleep(for: .seconds(3600)) }
        }
    }

    /// Registers the configured sources not in the catalog yet, which makes their sections, before the node
    /// reads its tree: the first tree then holds each section (saying it is loading until its source is
    /// read), and no index path changes meaning when the first scan lands. A catalog that has them already
    /// is not written to.
    public func registerSources() async {
        do {
            let known = Set(try await database.sources().map { [$0.identifier, $0.mount, String($0.rank)] })
            for provider in providers where !known.contains([provider.source.identifier, provider.source.mount, String(provider.source.rank)]) {
                try await database.register(provider.source)
            }
        } catch {
            // The first refresh registers them; only the start's tree lacks their sections meanwhile.
            logger.warning("could not register the catalog sources before the start: \(error)")
        }
    }

    /// The full integrity check the start skipped; a cache rebuilt because it was corrupt is refilled at once.
    ///
    /// `P/info` counts the rebuilt file before the event says so: a count read from the file moved aside (the
    /// start's, still under way) is then older than this one and never published after the event, where a
    /// client would take it for the refill's.
    func verifyCatalog() async {
        guard let aside = await database.verifyIntegrity(), !Task.isCancelled else { return }
        await node.refreshCatalogSummary()
        node.publishEvent(.error, [
            "kind": "database", "movedTo": .string(aside),
            "message": "the catalog cache failed its integrity check; it was moved aside and is rebuilt from the sources",
        ])
        await refreshAll()
    }

    /// Refreshes every source once, now, in parallel; for the command line and tests.
    public func refreshAll() async {
        await withDiscardingTaskGroup { group in
            for provider in providers { group.addTask { _ = await refresh(provider) } }
        }
    }

    /// Removes what sources no longer configured left in the cache, in one transaction, before refreshing
    /// the rest: otherwise they would stay in the tree, served but never refreshed. The content tree clears
    /// them from the store's diff; `P/events` gets a `catalogUpdated` per removed source.
    func forgetUnconfiguredSources() async {
        let configured = Set(providers.map(\.source.identifier))
        do {
            let removed = try await database.removeSources(notIn: configured)
            for (source, diff) in removed {
                logger.notice(
                    "catalog source no longer configured; removed it and its content",
                    metadata: [
                        "source": "\(source.identifier)", "kind": "\(source.kind.rawValue)",
                        "location": "\(source.location)", "removedItems": "\(diff.removedItems)",
                    ])
                node.publishEvent(.catalogUpdated, Self.updatedEvent(source, diff))
            }
            if !removed.isEmpty { await node.refreshCatalogSummary() }
        } catch is CancellationError {
            return
        } catch {
            logger.error("could not remove catalog sources no longer configured: \(error)")
        }
    }

    // MARK: - Scheduling

    /// Refreshes one source until cancelled: at once, then every interval, backing off while it fails.
    func keepRefreshing(_ provider: any CatalogProvider) async {
        let interval = provider.source.kind == .local ? settings.localInterval : settings.remoteInterval
        var failures = 0
        while !Task.isCancelled {
            let report = await refresh(provider)
            if case .failed = report { failures += 1 } else { failures = 0 }
            let wait = settings.policy.nextRefresh(interval: interval, consecutiveFailures: failures)
            do { try await Task.sleep(for: wait) } catch { return }
        }
    }

    /// One refresh of one source, reported on `P/events` and in `P/info`.
    @discardableResult
    func refresh(_ provider: any CatalogProvider) async -> CatalogRefresher.Report {
        let source = provider.source
        let report = await CatalogRefresher(database: database).refresh(provider)
        guard !Task.isCancelled else { return report }
        if let remote = provider as? RemoteCatalogProvider, !remote.url.isFileURL {
            await reportConnectivity(of: source, url: remote.url)
        }
        switch report {
        case let .updated(diff):
            node.publishEvent(.catalogUpdated, Self.updatedEvent(source, diff))
            await node.refreshCatalogSummary()
        case .unchanged:
            break
        case let .failed(message):
            let failures = (try? await database.syncState(for: source.identifier).consecutiveFailures) ?? 0
            node.publishEvent(.error, [
                "source": .string(source.identifier), "kind": .string(source.kind.rawValue),
                "location": .string(source.location), "message": .string(message),
                "consecutiveFailures": .number(Double(failures)), "keptPreviousContent": true,
            ])
        }
        await reportStatus(of: provider, report)
        if provider is RemoteCatalogProvider, settings.downloadsArtwork, !Task.isCancelled {
            await downloadArtwork()
        }
        return report
    }

    /// `catalogUpdated`'s fields.
    static func updatedEvent(_ source: CatalogSource, _ diff: CatalogDiff) -> [String: JSONValue] {
        [
            "source": .string(source.identifier), "kind": .string(source.kind.rawValue),
            "location": .string(source.location), "addedItems": .number(Double(diff.addedItems)),
            "removedItems": .number(Double(diff.removedItems)), "updatedItems": .number(Double(diff.updatedItems)),
            "addedContainers": .number(Double(diff.addedContainers.count)),
            "removedContainers": .number(Double(diff.removedContainers.count)),
            "changedContainers": .number(Double(diff.changedContainers.count)),
        ]
    }

    // MARK: - Connectivity and artwork

    /// Tells the tree why the source's section (and the root) would be empty: a remote source that could
    /// not be reached is offline; one that answered, even with an error, or a local one has no media.
    func reportStatus(of provider: any CatalogProvider, _ report: CatalogRefresher.Report) async {
        var outcome = SourceStatusBook.Outcome.loaded
        if case .failed = report, let remote = provider as? RemoteCatalogProvider, !remote.url.isFileURL,
           probe.lastOutcome(for: remote.url) != true {
            outcome = .unreachable
        }
        let status = statuses.record(outcome, for: provider.source)
        await node.setSectionStatus(status.status, for: status.section)
        await node.setEmptyRootReason(status.root)
    }

    /// Publishes `connectivity` when a source's server became reachable or unreachable (and the first time).
    func reportConnectivity(of source: CatalogSource, url: URL) async {
        guard let online = probe.lastOutcome(for: url), probe.markReported(online, for: url) else { return }
        logger.info("catalog source \(online ? "reachable" : "unreachable")", metadata: ["location": "\(url)"])
        node.publishEvent(.connectivity, [
            "online": .bool(online), "source": .string(source.identifier),
            "location": .string(source.location),
        ])
    }

    /// Fetches artwork the catalog points at but has not cached; a picture that failed is not retried
    /// until the node restarts.
    func downloadArtwork() async {
        guard probe.beginArtwork() else { return }
        defer { probe.endArtwork() }
        let downloader = ArtworkDownloader(database: database, fetcher: probe.fetcher)
        let report = await downloader.downloadPending(skipping: probe.failedArtwork())
        probe.recordFailedArtwork(report.failed)
        if report.stored > 0 {
            logger.info("artwork cached", metadata: ["pictures": "\(report.stored)"])
        }
    }
}
