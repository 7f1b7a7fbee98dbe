import CatalogStore
import ContentTree
import Foundation
import MediaNodeTesting
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
        #expect(try await database.search("19999", limit: 5).items.first?.identifier == "\(source.identifier)/track/19999")
        let same = try await database.replaceContent(of: source.identifier, with: snapshot)
        #expect(same.isEmpty)
        // Debug builds import about 8k items/s here; release figures come from `medianode-bench catalog-import`.
        #expect(importTime < .seconds(30))
    }
}
