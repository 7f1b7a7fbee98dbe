import Announcements
import ContentTree
import Foundation
import MediaJSON
import RemoteCommands

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

/// `announcementStarted` and `announcementFinished` on `P/events`.
struct AnnouncementEventPublisher: AnnouncementEvents {
    let events: EventPublisher

    private func publish(_ event: JSONValue) { events.publish(event) }

    func announcementStarted(id: String) {
        publish(["type": "announcementStarted", "announcementId": .string(id)])
    }

    func announcementFinished(id: String, reason: AnnouncementEnd) {
        var event: [String: JSONValue] = ["type": "announcementFinished", "announcementId": .string(id)]
        switch reason {
        case .finished: event["reason"] = "finished"
        case .cancelled: event["reason"] = "cancelled"
        case let .failed(message):
            event["reason"] = "failed"
            event["message"] = .string(message)
        }
        publish(.object(event))
    }
}
