import CatalogStore
import ContentTree
import Foundation
import MediaNodeTesting

/// A catalog file in its own temporary directory.
struct TemporaryCatalog {
    let directory: URL
    var path: String { directory.appendingPathComponent("catalog.sqlite").path }

    init(_ label: String = "catalog") throws {
        directory = try AudioFixtures.makeTemporaryDirectory(label)
    }

    func open() throws -> CatalogDatabase { try CatalogDatabase(path: path) }

    func remove() { try? FileManager.default.removeItem(at: directory) }
}

/// A small hand-made snapshot: one container per album name, the given track titles inside.
func albumSnapshot(_ source: CatalogSource, _ albums: [(String, [String])]) -> CatalogSnapshot {
    var snapshot = CatalogSnapshot()
    for (album, tracks) in albums {
        let albumID = "\(source.identifier)/\(album)"
        snapshot.add(.container(albumID, title: album))
        for track in tracks {
            snapshot.add(
                ContentItem(identifier: "\(albumID)/\(track)", title: track, isPlayable: true, uri: "file:///\(track).ogg",
                            artist: "Someone", albumTitle: album, duration: 100),
                under: albumID)
        }
    }
    return snapshot
}

/// Every child of a container, page by page.
func allChildren(_ catalog: some ContentCatalog, of identifier: String, pageSize: Int = 50) async throws -> [ContentItem] {
    var items: [ContentItem] = []
    var offset: Int? = 0
    while let start = offset {
        let page = try await catalog.children(of: identifier, offset: start, limit: pageSize)
        items += page.items
        offset = page.nextOffset
    }
    return items
}
