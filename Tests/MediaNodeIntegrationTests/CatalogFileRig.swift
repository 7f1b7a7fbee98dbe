import CatalogStore
import Foundation
import Logging
import MediaJSON
import MediaNode
import MediaNodeTesting

/// A node whose catalog is one MediaNode JSON catalog file (docs/catalog-format.md), refreshed into a real
/// catalog database before the node starts, against a real broker and real GStreamer rendering into a WAV.
struct CatalogFileRig {
    let rig: ContentRig
    /// The catalog identifier of each item, by its id in the catalog file.
    let identifiers: [String: String]
    var running: RunningNode { rig.running }

    /// One playable item of the catalog, under a container "Stations"; `fields` are its other JSON members.
    struct Item {
        var id: String
        var title: String
        var live: Bool
        var uri: URL
        var fields: [String: JSONValue] = [:]
    }

    static func start(_ items: [Item], artworkTimeout: Duration = .seconds(8),
                      logger: Logger = Logger(label: "medianode"),
                      configure: (inout NodeConfiguration) -> Void = { _ in }) async throws -> CatalogFileRig {
        let directory = try AudioFixtures.makeTemporaryDirectory("catalog-file")
        let nodes: [JSONValue] = items.map { item in
            var node = item.fields
            node["id"] = .string(item.id)
            node["title"] = .string(item.title)
            node["uri"] = .string(item.uri.absoluteString)
            node["live"] = .bool(item.live)
            return .object(node)
        }
        let document: JSONValue = [
            "format": "medianode-catalog", "version": 1,
            "items": [["id": "stations", "title": "Stations", "children": .array(nodes)]],
        ]
        let catalog = directory.appendingPathComponent("catalog.json")
        try Data(document.jsonBytes).write(to: catalog)
        let source = try RemoteCatalogProvider(location: catalog.path, fetcher: StandardCatalogFetcher()).source
        let rig = try await ContentRig.start(
            directory: directory, withLibrary: false, remoteCatalogs: [catalog.path], artworkTimeout: artworkTimeout,
            logger: logger, configure: configure)
        var identifiers: [String: String] = [:]
        for item in items { identifiers[item.id] = "\(source.identifier)/\(item.id)" }
        return CatalogFileRig(rig: rig, identifiers: identifiers)
    }

    /// Plays an item through the content tree, as a head unit does; returns the reply.
    func play(_ id: String) async throws -> JSONValue {
        try await running.send("playItem", #""identifier":"\#(identifiers[id]!)""#)
    }

    func stop() async { await rig.stop() }
}
