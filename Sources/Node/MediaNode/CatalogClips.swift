import Announcements
import ContentTree
import Foundation

/// Catalog items as announcement clips: a downloaded copy or a local file plays offline.
struct CatalogClips: AnnouncementCatalog {
    let catalog: any ContentCatalog
    let items: QueueItemMaker

    func clipLocation(of identifier: String) async -> ClipLocation? {
        guard let item = try? await catalog.item(identifier: identifier), item.isPlayable, item.uri != nil else { return nil }
        let uri = items.playableURI(of: item)
        guard let url = URL(string: uri) else { return nil }
        if url.isFileURL { return .file(path: url.path) }
        if url.scheme == "http" || url.scheme == "https" { return .remote(url) }
        // A bare path, as local folders may store.
        return uri.hasPrefix("/") ? .file(path: uri) : nil
    }
}
