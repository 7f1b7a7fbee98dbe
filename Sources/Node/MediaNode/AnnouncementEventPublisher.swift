import Announcements
import MediaJSON

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
