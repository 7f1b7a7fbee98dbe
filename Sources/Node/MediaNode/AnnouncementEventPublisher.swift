import Announcements
import MediaJSON

/// `announcementStarted` and `announcementFinished` on `P/events`.
struct AnnouncementEventPublisher: AnnouncementEvents {
    let events: EventPublisher

    func announcementStarted(id: String) {
        events.publish(.announcementStarted, ["announcementId": .string(id)])
    }

    func announcementFinished(id: String, reason: AnnouncementEnd) {
        var event: [String: JSONValue] = ["announcementId": .string(id)]
        switch reason {
        case .finished: event["reason"] = "finished"
        case .cancelled: event["reason"] = "cancelled"
        case let .failed(message):
            event["reason"] = "failed"
            event["message"] = .string(message)
        }
        events.publish(.announcementFinished, event)
    }
}
