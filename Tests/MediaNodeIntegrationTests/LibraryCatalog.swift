import CatalogStore
import Foundation
import MediaJSON
import MediaNodeTesting

/// A real catalog file with local folders scanned into it, as the catalog service does at start.
struct LibraryCatalog {
    let database: CatalogDatabase
    let path: String
    /// The catalog identifiers of the scanned files, in path order.
    let identifiers: [String]

    /// - Parameter name: the catalog file's name; a new one unless given, and an existing file is scanned again.
    static func scan(_ libraries: [String], into directory: URL, named name: String? = nil) async throws -> LibraryCatalog {
        let path = directory.appendingPathComponent(name ?? "catalog-\(UUID().uuidString.prefix(8)).sqlite").path
        let database = try CatalogDatabase(path: path)
        let provider = LocalFolderProvider(roots: libraries.map { URL(fileURLWithPath: $0) })
        _ = await CatalogRefresher(database: database).refresh(provider)
        let files = try await database.localFiles(of: provider.source.identifier)
        var identifiers: [String] = []
        for path in files.keys.sorted() {
            let identifier = trackIdentifier(path: path, libraries: libraries)
            // Cover pictures are local files too; only playable items go into the queue.
            if try await database.item(identifier: identifier)?.isPlayable == true { identifiers.append(identifier) }
        }
        return LibraryCatalog(database: database, path: path, identifiers: identifiers)
    }

    /// The identifier the local-folder provider gives the file at `path`.
    static func trackIdentifier(path: String, libraries: [String]) -> String {
        let source = LocalFolderProvider(roots: libraries.map { URL(fileURLWithPath: $0) }).source.identifier
        return StableIdentifier.make("track", key: source + "\n" + path)
    }

    /// The prepareQueue payload that queues every scanned file in path order, without playing (S32).
    var prepareQueuePayload: String {
        JSONValue.object(["identifiers": .array(identifiers.map(JSONValue.string))]).jsonString
    }
}
