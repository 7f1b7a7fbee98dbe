import ContentTree
import Foundation
import GRDB

/// Numbers for the benchmark executable: how fast a large JSON catalog imports, and what a child page
/// costs through the store compared with the same SQL written by hand.
public enum CatalogMeasurement {
    public struct Report: Sendable, CustomStringConvertible {
        public var items: Int
        public var parseSeconds: Double
        public var importSeconds: Double
        public var reimportUnchangedSeconds: Double
        public var pageQueries: Int
        /// Microseconds.
        public var storePageP50: Double
        public var storePageP99: Double
        public var rawPageP50: Double
        public var rawPageP99: Double
        /// The file after the import and a WAL checkpoint.
        public var databaseBytes: Int

        public var description: String {
            let rate = Double(items) / max(importSeconds, 1e-9)
            return """
                catalog import: \(items) items parsed in \(format(parseSeconds)) s, stored in \(format(importSeconds)) s \
                (\(Int(rate)) items/s); unchanged re-import \(format(reimportUnchangedSeconds)) s
                child page (limit 50, \(pageQueries) queries): store p50 \(format(storePageP50)) µs, \
                p99 \(format(storePageP99)) µs; hand SQL p50 \(format(rawPageP50)) µs, p99 \(format(rawPageP99)) µs
                database: \(databaseBytes) bytes, \(databaseBytes * 10_000 / max(items, 1) / 1024) KiB per 10k items
                """
        }

        private func format(_ value: Double) -> String { String(format: "%.3f", value) }
    }

    /// Imports a generated `items`-item JSON catalog into a fresh database in `directory`, then times
    /// `pageQueries` random child pages both ways. Run it from a release build.
    public static func run(items: Int = 100_000, pageQueries: Int = 2_000, directory: URL) async throws -> Report {
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

        // Every container at every depth (root, section, lists, albums), each page at a random offset.
        let containers = try await database.pool.read { db in
            try Row.fetchAll(db, sql: "SELECT identifier, childCount FROM item WHERE isContainer AND childCount > 0")
                .map { (identifier: $0[0] as String, count: $0[1] as Int) }
        }
        var storeTimes: [Double] = [], rawTimes: [Double] = []
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<pageQueries {
            let container = containers.randomElement(using: &generator) ?? (ContentItem.rootIdentifier, 1)
            let album = container.identifier
            let offset = Int.random(in: 0..<max(1, container.count), using: &generator)
            storeTimes.append(micros(try await clock.measure {
                _ = try await database.children(of: album, offset: offset, limit: 50)
            }))
            rawTimes.append(micros(try clock.measure {
                _ = try database.pool.read { db in
                    try Row.fetchAll(db, sql: """
                        SELECT item.* FROM child JOIN item ON item.identifier = child.identifier
                        WHERE child.parent = ? AND child.position >= ? ORDER BY child.position LIMIT 50
                        """, arguments: [album, offset])
                }
            }))
        }
        try database.close()
        return Report(
            items: items, parseSeconds: seconds(parse), importSeconds: seconds(store),
            reimportUnchangedSeconds: seconds(again), pageQueries: pageQueries,
            storePageP50: percentile(storeTimes, 0.5), storePageP99: percentile(storeTimes, 0.99),
            rawPageP50: percentile(rawTimes, 0.5), rawPageP99: percentile(rawTimes, 0.99), databaseBytes: size)
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    static func micros(_ duration: Duration) -> Double { seconds(duration) * 1e6 }

    static func percentile(_ values: [Double], _ fraction: Double) -> Double {
        guard !values.isEmpty else { return 0 }
        let sorted = values.sorted()
        return sorted[min(sorted.count - 1, Int((Double(sorted.count - 1) * fraction).rounded()))]
    }
}
