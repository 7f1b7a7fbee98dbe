import Foundation
import MediaJSON
import Playback
import RemoteCommands
import ServiceLifecycle

// MARK: - The audio and what follows it

/// The audio engine and the playback controller that turns its facts into state. Stops after now
/// playing and before the transport: the position is saved where the item stands (S31) and the lists
/// showing it are republished, then the audio stops, all before the node says `offline`.
struct PlaybackService: Service {
    let node: Node
    let playback: PlaybackController

    func run() async throws {
        let isGraceful = await withDiscardingTaskGroup(returning: Bool.self) { group in
            group.addTask {
                // The listener's volume is restored before the controller follows the engine.
                await node.commandsReady.wait()
                await playback.run()
            }
            defer { group.cancelAll() }
            do {
                try await gracefulShutdown()
                return true
            } catch {
                return false
            }
        }
        guard isGraceful else { return }
        await node.saveCurrentProgress()
        await node.publishPendingTree()
        await node.engine?.shutdown()
    }
}

/// Publishes what playback does: `P/nowplaying` (with its artwork), the queue, the volume, the events,
/// the capability parameters that follow playback, and the progress saved when an item stops or ends.
struct NowPlayingService: Service {
    let node: Node
    let playback: PlaybackController

    func run() async throws {
        await cancelWhenGracefulShutdown { [node, playback] in
            // After the initial state, which these would otherwise overwrite.
            await node.commandsReady.wait()
            await withDiscardingTaskGroup { group in
                group.addTask { await node.nowPlaying.run() }
                group.addTask { await node.followSnapshots(playback) }
                group.addTask { await node.followEvents(playback) }
            }
            // The controller's streams end only when the engine does.
            await waitUntilCancelled()
        }
    }
}

extension Node {
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
