import ArgumentParser
import CatalogStore
import ContentTree
import Foundation
import Logging
import MediaNode

/// `medianode catalog ...`: fill and inspect the catalog cache without running the node.
struct CatalogCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "catalog",
        abstract: "Scan, import, list and search the catalog cache.",
        subcommands: [CatalogScan.self, CatalogImport.self, CatalogList.self, CatalogSearch.self, CatalogMeasure.self])
}

/// What every catalog subcommand takes.
struct CatalogOptions: ParsableArguments {
    @Option(help: "The SQLite catalog file (default as for the node).")
    var database: String?
    @Flag(help: "Log what the store does (to standard error).")
    var verbose = false

    /// Opens the catalog, quieting the store's informational logs unless --verbose. `forWriting` checks first,
    /// as the node does at start, that the file and its folder can be written: otherwise a scan or an import
    /// runs to its end and fails at its first write with SQLite's words instead of one line naming the file.
    func open(forWriting: Bool = false) throws -> CatalogDatabase {
        let level: Logger.Level = verbose ? .debug : .warning
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        let path = database ?? Run.defaultDatabasePath
        guard forWriting else {
            try FileManager.default.createDirectory(
                at: URL(fileURLWithPath: path).deletingLastPathComponent(), withIntermediateDirectories: true)
            return try CatalogDatabase(path: path)
        }
        do {
            try FileManager.default.createDirectory(
                at: URL(fileURLWithPath: path).deletingLastPathComponent(), withIntermediateDirectories: true)
        } catch {
            throw CatalogFileProblem(path: path, reason: "its folder cannot be created (\(error.localizedDescription))")
        }
        try CatalogDatabase.checkWritable(path: path)
        do {
            return try CatalogDatabase(path: path)
        } catch {
            throw CatalogFileProblem(path: path, error: error)
        }
    }
}

/// One line per item: position, a slash for containers, identifier, title and subtitle, tab-separated.
func printItems(_ items: [ContentItem], startingAt offset: Int = 0) {
    for (index, item) in items.enumerated() {
        let kind = item.isContainer ? "/" : (item.isStreamingContent ? "~" : "-")
        print([String(offset + index), kind, item.identifier, item.title, item.subtitle ?? ""].joined(separator: "\t"))
    }
}

/// A one-line account of a refresh's outcome.
func describe(_ report: CatalogRefresher.Report) -> String {
    switch report {
    case let .updated(diff):
        "+\(diff.addedItems) -\(diff.removedItems) ~\(diff.updatedItems) items, "
            + "\(diff.containersToPublish.count + diff.removedContainers.count) containers changed"
    case .unchanged: "unchanged"
    case let .failed(message): "failed: \(message)"
    }
}

struct CatalogScan: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "scan", abstract: "Scan local music folders into the catalog (incremental, like --library).")

    @OptionGroup var options: CatalogOptions
    @Argument(help: "Folders scanned together as one library.")
    var directories: [String]

    func validate() throws {
        if directories.isEmpty { throw ValidationError("give at least one folder") }
        for directory in directories {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue
            else { throw ValidationError("not a folder: \(directory)") }
        }
    }

    func run() async throws {
        let database = try options.open(forWriting: true)
        let progress = ProgressBar()
        let provider = LocalFolderProvider(
            roots: directories.map { URL(fileURLWithPath: $0) }, fallbackReader: DiscovererTagReader()
        ) { done, total in
            progress.update("scanning", done: done, total: total)
        }
        let started = ContinuousClock.now
        let report = await CatalogRefresher(database: database).refresh(provider)
        progress.finish()
        let summary = try await database.summary()
        print("\(directories.joined(separator: ", ")): \(describe(report)) in \(ContinuousClock.now - started)")
        print("catalog: \(summary.playables) playable items, \(summary.containers) containers, \(summary.sources) sources")
        if case .failed = report { throw ExitCode.failure }
    }
}

struct CatalogImport: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Import remote catalogs (podcast RSS, M3U/PLS, MediaNode JSON) from URLs or files.")

    @OptionGroup var options: CatalogOptions
    @Option(help: "podcast, radio or json; default from each name (.m3u/.m3u8/.pls radio, .json json, else podcast).")
    var kind: String?
    @Argument(help: "http(s) URLs, file URLs or paths.")
    var locations: [String]

    func run() async throws {
        guard !locations.isEmpty else { throw ValidationError("give at least one URL or file") }
        let chosenKind = try kind.map { name in
            guard let kind = CatalogSource.Kind(rawValue: name), kind != .local else {
                throw ValidationError("--kind must be podcast, radio or json")
            }
            return kind
        }
        let database = try options.open(forWriting: true)
        let fetcher = StandardCatalogFetcher()
        let progress = ProgressBar()
        var failed = false
        for (index, location) in locations.enumerated() {
            progress.update("importing \(location)", done: index, total: locations.count)
            let report: CatalogRefresher.Report
            do {
                let provider = try RemoteCatalogProvider(location: location, kind: chosenKind, fetcher: fetcher)
                report = await CatalogRefresher(database: database).refresh(provider)
            } catch {
                report = .failed(String(describing: error))
            }
            progress.update("importing \(location)", done: index + 1, total: locations.count)
            progress.finish()
            print("\(location): \(describe(report))")
            if case .failed = report { failed = true }
        }
        let artwork = await ArtworkDownloader(database: database, fetcher: fetcher).downloadPending()
        if artwork.stored + artwork.failed.count > 0 {
            print("artwork: \(artwork.stored) cached, \(artwork.failed.count) not fetched")
        }
        if failed { throw ExitCode.failure }
    }
}

struct CatalogList: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list", abstract: "List the children of a container (the root when none is given).")

    @OptionGroup var options: CatalogOptions
    @Argument(help: "A container identifier.")
    var identifier: String?
    @Option(help: "The position of the first child.")
    var offset = 0
    @Option(help: "At most this many children.")
    var limit = 100

    func run() async throws {
        let database = try options.open()
        let container = identifier ?? ContentItem.rootIdentifier
        if identifier != nil, try await database.item(identifier: container) == nil {
            throw ValidationError("no item \(container) in the catalog")
        }
        let page = try await database.children(of: container, offset: offset, limit: limit)
        printItems(page.items, startingAt: page.offset)
        if let next = page.nextOffset {
            print("... \(page.childCount - next) more (--offset \(next))")
        }
    }
}

struct CatalogSearch: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "search", abstract: "Search titles, artists, albums and shows (every word as a prefix), best first.")

    @OptionGroup var options: CatalogOptions
    @Argument(help: "The words to look for.")
    var words: [String]
    @Option(help: "At most this many results.")
    var limit = 50

    func run() async throws {
        let database = try options.open()
        let results = try await database.search(words.joined(separator: " "), limit: limit)
        if results.items.isEmpty { print("no match") }
        printItems(results.items)
        if results.total > results.items.count { print("... \(results.total - results.items.count) more (--limit)") }
    }
}
