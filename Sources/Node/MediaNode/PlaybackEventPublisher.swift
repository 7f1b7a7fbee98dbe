import Logging
import MediaJSON
import Playback

/// Playback's events on `P/events`: trackStarted, trackEnded, error, and what happened to the output
/// (audioFocus, outputLost, outputRestored); a stall is counted in `P/metrics`, a seek shown by now playing.
struct PlaybackEventPublisher: PlaybackObserver {
    let events: EventPublisher
    let logger: Logger

    func playbackReported(_ event: PlaybackEvent) async {
        switch event {
        case let .trackStarted(identifier):
            events.publish(.trackStarted, ["identifier": .string(identifier)])
        case let .trackEnded(identifier, reason, position):
            events.publish(.trackEnded, [
                "identifier": .string(identifier), "reason": .string(reason.rawValue), "position": .number(position),
            ])
        case let .error(identifier, error):
            logger.warning("playback error on \(identifier ?? "the output"): \(error)")
            events.publish(.error, [
                "identifier": JSONValue(identifier), "kind": .string(error.kind.rawValue), "message": .string(error.message),
            ])
        case .stalled, .seeked:
            // A stall is counted in `P/metrics`; the contract has no event for either (now playing shows a seek).
            break
        case let .output(change):
            // The engine logs a lost output once, however long it stays away.
            let (type, fields) = change.event
            events.publish(type, fields)
        }
    }
}

extension OutputChange {
    /// The change as `P/events` carries it.
    var event: (NodeEvent, [String: JSONValue]) {
        switch self {
        case .focusLost: (.audioFocus, ["state": "lost"])
        case .focusRegained: (.audioFocus, ["state": "regained"])
        case let .lost(message): (.outputLost, ["message": .string(message)])
        case .restored: (.outputRestored, [:])
        }
    }
}
