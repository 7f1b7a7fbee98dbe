import ContentTree
import Foundation
import Logging
import MediaJSON
import Playback
import RemoteCommands
import ServiceLifecycle

// MARK: - The audio and what follows it

/// What the playback service asks of the rest of the node when it stops gracefully, before the audio does.
protocol PlaybackStopping: Sendable {
    /// Saves where the current item stands (S31) and republishes the lists that show it.
    func settleBeforeAudioStops() async
}

/// The audio engine and the playback controller that turns its facts into state. Stops after now
/// playing and before the transport: the position is saved where the item stands (S31) and the lists
/// showing it are republished, then the audio stops, all before the node says `offline`.
struct PlaybackService: Service {
    /// Opens once the listener's volume is restored, before the controller follows the engine.
    let ready: Latch
    let playback: PlaybackController
    let engine: any AudioEngine
    let stopping: any PlaybackStopping

    func run() async throws {
        let isGraceful = await withDiscardingTaskGroup(returning: Bool.self) { [ready, playback] group in
            group.addTask {
                await ready.wait()
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
        await stopping.settleBeforeAudioStops()
        await engine.shutdown()
    }
}

/// What the now-playing service hands on: each snapshot and event of playback, in order.
protocol PlaybackFollower: Sendable {
    /// Marks the retained state the snapshot shows (now playing, the queue, the volume, the commands'
    /// parameters, a new item's marks) without waiting for a write or the network: a command's reply waits
    /// for it. `itemChanged` when it shows another item than the snapshot before it.
    func show(_ snapshot: PlaybackSnapshot, itemChanged: Bool) async
    /// Does what else follows from the snapshot: the position saved on a pause.
    func follow(_ snapshot: PlaybackSnapshot) async
    func report(_ event: PlaybackEvent) async
}

/// Publishes what playback does: `P/nowplaying` (with its artwork), the queue, the volume, the events,
/// the capability parameters that follow playback, and the progress saved when an item stops or ends.
struct NowPlayingService: Service {
    /// Opens once the initial state is marked, which what this service publishes would otherwise overwrite.
    let ready: Latch
    let playback: PlaybackController
    let nowPlaying: NowPlayingPublisher
    let follower: any PlaybackFollower
    /// How far the retained state shows the controller's snapshots, for the replies that wait for it.
    let shown: ShownSnapshots
    /// The services that follow playback too, told after now playing.
    var observers: [any PlaybackObserver] = []

    func run() async throws {
        await cancelWhenGracefulShutdown { [ready, playback, nowPlaying, follower, shown, observers] in
            await ready.wait()
            await withDiscardingTaskGroup { group in
                group.addTask { await nowPlaying.run() }
                group.addTask {
                    var shownItem: String?
                    // The stream only wakes this loop: what it shows is the newest snapshot, which may be newer
                    // than the one that woke it (that one then wakes it for nothing).
                    for await _ in playback.snapshots {
                        guard let (number, snapshot) = playback.latestSnapshot, number > shown.number else { continue }
                        let item = snapshot.item?.identifier
                        await follower.show(snapshot, itemChanged: item != shownItem)
                        shownItem = item
                        shown.advance(to: number)
                        await follower.follow(snapshot)
                        for observer in observers { observer.playbackChanged(snapshot) }
                    }
                }
                group.addTask {
                    for await event in playback.events {
                        await follower.report(event)
                        for observer in observers { observer.playbackReported(event) }
                    }
                }
            }
            // The controller's streams end only when the engine does.
            await waitUntilCancelled()
        }
    }
}

/// What follows playback besides now playing itself: `P/queue`, `P/volume`, the events, the capability
/// parameters that show playback, and the position saved when an item stops or ends (and before the audio
/// stops at shutdown).
struct PlaybackReporter: PlaybackStopping, PlaybackFollower {
    let nowPlaying: NowPlayingPublisher
    let commandCenter: RemoteCommandCenter
    let feedback: FeedbackBook
    let volume: ListenerVolume?
    let progress: PlaybackProgress?
    /// Where the queue came from in the tree, for now playing's identifier path (S31).
    let content: NodeContent?
    let retained: RetainedPublisher
    let queueTopic: String
    let capabilities: CapabilitiesPublisher
    let events: EventPublisher
    let logger: Logger

    func settleBeforeAudioStops() async {
        await progress?.saveCurrent()
        await progress?.publishPendingTree()
    }

    func show(_ snapshot: PlaybackSnapshot, itemChanged: Bool) async {
        publishQueue(snapshot.queue)
        volume?.publish(snapshot.volume, isMuted: snapshot.isMuted, speedGainDb: snapshot.speedGainDb)
        await nowPlaying.update(
            snapshot, nowPlayingIdentifiers: snapshot.item.map { (content?.queueContext ?? []) + [$0.identifier] })
        commandCenter.setCurrentPlaybackRate(snapshot.rate)
        commandCenter.setParameter(
            "currentRepeatType", .string(snapshot.queue.repeatMode.rawValue), for: RemoteCommand.changeRepeatMode)
        commandCenter.setParameter(
            "currentShuffleType", .string(snapshot.queue.shuffleMode.rawValue), for: RemoteCommand.changeShuffleMode)
        commandCenter.setNowPlaying(isItemLoaded: snapshot.item != nil, isLiveStream: snapshot.isLiveStream)
        if itemChanged {
            // A read of the catalog file, which its writes do not hold up (WAL).
            var marks = ItemFeedback()
            if let item = snapshot.item { marks = await feedback.feedback(for: item.identifier) }
            commandCenter.showFeedback(marks)
        }
        // Here, not only when the capability loop hears of the change: it is part of what the reply waits for.
        capabilities.mark()
    }

    func follow(_ snapshot: PlaybackSnapshot) async {
        await progress?.follow(snapshot)
    }

    func report(_ event: PlaybackEvent) async {
        switch event {
        case let .trackStarted(identifier):
            events.publish(["type": "trackStarted", "identifier": .string(identifier)])
        case let .trackEnded(identifier, reason, position):
            await progress?.follow(ended: identifier, position: position)
            events.publish([
                "type": "trackEnded", "identifier": .string(identifier), "reason": .string(reason.rawValue),
                "position": .number(position),
            ])
        case let .error(identifier, error):
            logger.warning("playback error on \(identifier ?? "the output"): \(error)")
            events.publish([
                "type": "error", "identifier": JSONValue(identifier), "kind": .string(error.kind.rawValue),
                "message": .string(error.message),
            ])
        case .stalled, .seeked:
            // A stall is counted in `P/metrics`; the contract has no event for either (now playing shows a seek).
            break
        }
    }

    func publishQueue(_ queue: QueueSummary) {
        let document: JSONValue = [
            "identifiers": .array(queue.identifiers.map(JSONValue.string)), "index": JSONValue(queue.index),
            "repeatMode": .string(queue.repeatMode.rawValue), "shuffleMode": .string(queue.shuffleMode.rawValue),
        ]
        retained.publish(queueTopic, document.jsonBytes)
    }
}
