import Foundation
import MediaJSON
import Playback
import RemoteCommands

// MARK: - Following playback

extension Node {
    /// Starts the controller and the tasks that publish what it does.
    func startPlayback() -> [Task<Void, Never>] {
        guard let playback else { return [] }
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
            publishVolume(snapshot.volume, isMuted: snapshot.isMuted)
            await nowPlaying.update(
                snapshot, nowPlayingIdentifiers: snapshot.item.map { nowPlayingIdentifiers(for: $0.identifier) })
            await followProgress(snapshot)
            commandCenter.setCurrentPlaybackRate(snapshot.rate)
            commandCenter.setParameter(
                "currentRepeatType", .string(snapshot.queue.repeatMode.rawValue), for: RemoteCommand.changeRepeatMode)
            commandCenter.setParameter(
                "currentShuffleType", .string(snapshot.queue.shuffleMode.rawValue), for: RemoteCommand.changeShuffleMode)
            commandCenter.setNowPlaying(isItemLoaded: snapshot.item != nil, isLiveStream: snapshot.isLiveStream)
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
