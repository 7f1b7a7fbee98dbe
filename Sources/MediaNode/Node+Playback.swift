import Foundation
import MediaJSON
import Playback
import RemoteCommands

// MARK: - Following playback

extension Node {
    /// Commands that need a current item, shown unavailable with nothing loaded (S2, S3).
    static let itemCommands: [RemoteCommand] = [
        .changePlaybackPosition, .changePlaybackRate, .skipForward, .skipBackward, .seekForward, .seekBackward,
    ]
    /// Commands that make no sense in a live stream (S14).
    static let seekCommands: [RemoteCommand] = [
        .changePlaybackPosition, .skipForward, .skipBackward, .seekForward, .seekBackward,
    ]

    /// Starts the controller and the tasks that publish what it does.
    func startPlayback() -> [Task<Void, Never>] {
        guard let playback else { return [] }
        commandCenter.setAvailable(false, for: Self.itemCommands)
        return [
            Task { await playback.run() },
            Task { await self.followSnapshots(playback) },
            Task { await self.followEvents(playback) },
        ]
    }

    func followSnapshots(_ playback: PlaybackController) async {
        var shownItem: String?
        for await snapshot in playback.snapshots {
            publishQueue(snapshot.queue)
            await nowPlaying.update(
                snapshot, nowPlayingIdentifiers: snapshot.item.map { nowPlayingIdentifiers(for: $0.identifier) })
            await followProgress(snapshot)
            commandCenter.setCurrentPlaybackRate(snapshot.rate)
            commandCenter.setParameter("currentRepeatType", .string(snapshot.queue.repeatMode.rawValue), for: .changeRepeatMode)
            commandCenter.setParameter("currentShuffleType", .string(snapshot.queue.shuffleMode.rawValue), for: .changeShuffleMode)
            let loaded = snapshot.item != nil
            commandCenter.setAvailable(loaded, for: Self.itemCommands)
            if loaded && snapshot.isLiveStream { commandCenter.setAvailable(false, for: Self.seekCommands) }
            if snapshot.item?.identifier != shownItem {
                shownItem = snapshot.item?.identifier
                if let shownItem {
                    showFeedback(await feedback.feedback(for: shownItem))
                } else {
                    showFeedback(.init())
                }
            }
        }
    }

    func followEvents(_ playback: PlaybackController) async {
        for await event in playback.events {
            switch event {
            case let .trackStarted(identifier):
                publishEvent(["type": "trackStarted", "identifier": .string(identifier)])
            case let .trackEnded(identifier, reason, position):
                await followProgress(ended: identifier, position: position)
                publishEvent([
                    "type": "trackEnded", "identifier": .string(identifier), "reason": .string(reason.rawValue),
                    "position": .number(position),
                ])
            case let .error(identifier, error):
                logger.warning("playback error on \(identifier ?? "the output"): \(error)")
                publishEvent([
                    "type": "error", "identifier": JSONValue(identifier), "kind": .string(error.kind.rawValue),
                    "message": .string(error.message),
                ])
            }
        }
    }

    func publishQueue(_ queue: QueueSummary) {
        let document: JSONValue = [
            "identifiers": .array(queue.identifiers.map(JSONValue.string)), "index": JSONValue(queue.index),
            "repeatMode": .string(queue.repeatMode.rawValue), "shuffleMode": .string(queue.shuffleMode.rawValue),
        ]
        retained.publish(topics.queue, document.jsonBytes)
    }
}
