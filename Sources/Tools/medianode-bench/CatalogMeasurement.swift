import CatalogStore
import ContentTree
import Foundation
import GRDB
import MediaNodeFixtures

/// How fast a large JSON catalog imports, and what a child page
/// costs through the store compared with the same SQL written by hand, at every depth.
enum CatalogMeasurement {
    /// Child-page latencies at one depth of the tree, through the store and by hand, in microseconds.
    struct PageSamples: Sendable {
        var depth: Int
        /// Containers at this depth and their largest child count, for the reader.
        var containers: Int
        var largestChildCount: Int
        var store: [Double] = []
        var handSQL: [Double] = []
    }

    struct Report: Sendable {
        var items: Int
        var parseSeconds: Double
        var importSeconds: Double
        var reimportUnchangedSeconds: Double
        /// The file after the import and a WAL checkpoint.
        var databaseBytes: Int
        var pageLimit: Int
        var spacing: Duration
        var pages: [PageSamples]

        var importSummary: String {
            func format(_ value: Double) -> String { String(format: "%.3f", value) }
            let storeRate = Double(items) / max(importSeconds, 1e-9)
            let wholeRate = Double(items) / max(parseSeconds + importSeconds, 1e-9)
            return """
                catalog import: \(items) items parsed in \(format(parseSeconds)) s, stored in \(format(importSeconds)) s \
                (\(Int(storeRate)) items/s stored, \(Int(wholeRate)) items/s bytes to database); \
                unchanged re-import \(format(reimportUnchangedSeconds)) s
                database: \(databaseBytes) bytes, \(databaseBytes * 10_000 / max(items, 1) / 1024) KiB per 10k items
                """
        }
    }

    /// Imports a generated `items`-item JSON catalog into a fresh database in `directory`, then times
    /// `pageQueries` child pages both ways, interleaved: a depth at random, a container of that depth at
    /// random, an offset at random within it, back to back or `spacing` apart (as browse requests arrive at
    /// a node: caches are colder, but the process is no CPU hog for the scheduler to preempt). Run it from a
    /// release build.
    static func run(
        items: Int = 100_000, pageQueries: Int = 2_000, pageLimit: Int = 50, spacing: Duration = .zero,
        directory: URL
    ) async throws -> Report {
        let path = directory.appendingPathComponent("measure-\(UUID().uuidString.prefix(8)).sqlite").path
        defer {
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        }
        let database = try CatalogDatabase(path: path, checkIntegrity: false)
        let source = CatalogSource(kind: .json, location: "measure://\(items)")
        try await database.register(source)
        let data = SyntheticCatalog.json(items: items)

        let clock = ContinuousClock()
        var snapshot = CatalogSnapshot()
        let parse = try clock.measure { snapshot = try JSONCatalogParser().parse(data, baseURL: nil, source: source) }
        let store = try await clock.measure { try await database.replaceContent(of: source.identifier, with: snapshot) }
        let again = try await clock.measure { try await database.replaceContent(of: source.identifier, with: snapshot) }

        try await database.pool.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)") }
        let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0

        let levels = try await containersByDepth(database)
        var pages = levels.map { level in
            PageSamples(
                depth: level.depth, containers: level.containers.count,
                largestChildCount: level.containers.map(\.count).max() ?? 0)
        }
        let hand = try HandWrittenPageQuery(path: path, sql: CatalogDatabase.childPageSQL)
        var generator = SystemRandomNumberGenerator()
        for query in 0..<pageQueries where !levels.isEmpty {
            if spacing > .zero { try await Task.sleep(for: spacing) }
            let level = Int.random(in: 0..<levels.count, using: &generator)
            let container = levels[level].containers.randomElement(using: &generator)!
            let offset = Int.random(in: 0..<max(1, container.count), using: &generator)
            // Alternate which goes first, so neither always finds the caches the other warmed.
            for turn in 0..<2 {
                if (query + turn) % 2 == 0 {
                    let time = try await clock.measure {
                        _ = try await database.children(of: container.identifier, offset: offset, limit: pageLimit)
                    }
                    pages[level].store.append(micros(time))
                } else {
                    let time = try clock.measure { try hand.run(container.identifier, offset, pageLimit) }
                    pages[level].handSQL.append(micros(time))
                }
            }
        }
        hand.close()
        try database.close()
        return Report(
            items: items, parseSeconds: seconds(parse), importSeconds: seconds(store),
            reimportUnchangedSeconds: seconds(again), databaseBytes: size, pageLimit: pageLimit, spacing: spacing,
            pages: pages)
    }

    /// Every container with children, grouped by its depth below the root (breadth first).
    static func containersByDepth(_ database: CatalogDatabase) async throws
        -> [(depth: Int, containers: [(identifier: String, count: Int)])]
    {
        try await database.pool.read { db in
            var levels: [(depth: Int, containers: [(identifier: String, count: Int)])] = []
            var seen: Set<String> = []
            var current = [ContentItem.rootIdentifier]
            var depth = 0
            while !current.isEmpty {
                var level: [(identifier: String, count: Int)] = []
                var next: [String] = []
                for identifier in current where seen.insert(identifier).inserted {
                    let count = try Int.fetchOne(
                        db, sql: "SELECT childCount FROM item WHERE identifier = ?", arguments: [identifier]) ?? 0
                    guard count > 0 else { continue }
                    level.append((identifier, count))
                    next += try String.fetchAll(
                        db,
                        sql: """
                            SELECT child.identifier FROM child JOIN item ON item.rowid = child.itemRowid
                            WHERE child.parent = ? AND item.isContainer
                            """,
                        arguments: [identifier])
                }
                if !level.isEmpty { levels.append((depth, level)) }
                current = next
                depth += 1
            }
            return levels
        }
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    static func micros(_ duration: Duration) -> Double { seconds(duration) * 1e6 }
}
