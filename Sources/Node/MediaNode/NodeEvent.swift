/// The `type` of every event the node publishes on `P/events` (topics.md "Events on `P/events`", asyncapi.yaml's
/// `Event` schema), named once: each publisher sends one of these (`EventPublisher.publish(_:_:)`), and a
/// test checks both documents list exactly these.
public enum NodeEvent: String, CaseIterable, Sendable {
    case trackStarted
    case trackEnded
    case error
    case catalogUpdated
    case connectivity
    case downloadFinished
    case downloadFailed
    case announcementStarted
    case announcementFinished
    case audioFocus
    case outputLost
    case outputRestored
}
