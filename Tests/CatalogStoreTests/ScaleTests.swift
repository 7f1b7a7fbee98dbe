import CatalogStore
import ContentTree
import Foundation
import Testing

@Suite("catalog at scale")
struct ScaleTests {
    @Test("a 20k-item catalog imports, pages and re-imports without rewriting")
    func largeCatalog() async throws {
        let temp = try TemporaryCatalog("scale")
        defer { temp.remove() }
        let database = try temp.open()
        let source = CatalogSource(kind: .json, location: "test://scale")
        try await database.register(source)
        let snapshot = SyntheticCatalog.snapshot(source: source, items: 20_000)
        let clock = ContinuousClock()
        var diff = CatalogDiff()
        let importTime = try await clock.measure {
            diff = try await database.replaceContent(of: source.identifier, with: snapshot)
        }
        #expect(diff.addedItems == snapshot.count)
        let albums = "\(source.identifier)/albums"
        #expect(try await database.childCount(of: albums) == 200)
        let deep = try await database.children(of: albums, offset: 190, limit: 50)
        #expect(deep.items.count == 10 && deep.items.first?.title == "Album 190 g0")
        #expect(try await database.item(at: [1, 199, 99])?.title == "Track 19999 g0")
        #expect(try await database.search("19999", limit: 5).first?.identifier == "\(source.identifier)/track/19999")
        let same = try await database.replaceContent(of: source.identifier, with: snapshot)
        #expect(same.isEmpty)
        // Debug builds import about 8k items/s here; release figures come from CatalogMeasurement.
        #expect(importTime < .seconds(30))
    }

    @Test("the measurement runs on a small catalog")
    func measurementRuns() async throws {
        let temp = try TemporaryCatalog("measure")
        defer { temp.remove() }
        let report = try await CatalogMeasurement.run(items: 2_000, pageQueries: 50, directory: temp.directory)
        #expect(report.items == 2_000)
        // Root, the catalog's top container, its albums: every depth is sampled, both ways.
        #expect(report.pages.map(\.depth) == [0, 1, 2])
        #expect(report.pages.map(\.largestChildCount) == [1, 20, 100])
        let samples = report.pages.flatMap { $0.store + $0.handSQL }
        #expect(samples.count == 100 && samples.allSatisfy { $0 > 0 })
    }
}
