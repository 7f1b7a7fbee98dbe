import CatalogStore
import MPRIS
import MQTTTransport
import MediaJSON
import NowPlaying
import Playback
import RemoteCommands

// MARK: - What MPRIS shows: the retained documents

/// Reads what MPRIS shows from the retained documents as MQTT subscribers get them, and the playback
/// controller's newest snapshot for what they do not carry.
struct NodeMPRISSource: MPRISStateSource {
    let retained: RetainedPublisher
    let topics: TopicLayout
    let commandCenter: RemoteCommandCenter
    let playback: PlaybackController?
    let artworkStore: (any ArtworkStore)?

    /// The topics whose changes MPRIS shows. Now playing names the catalog's picture before its bytes are out
    /// (they follow on its topic, then on `P/nowplaying/artwork`), and `mpris:artUrl` is a file of those bytes:
    /// their arrival is a change too, though now playing itself does not change then.
    var watchedTopics: Set<String> {
        [topics.nowPlaying, topics.nowPlayingArtwork, topics.queue, topics.volume, topics.commands]
    }

    func inputs() -> MPRISInputs {
        func document(_ topic: String) -> JSONValue {
            retained.current(topic).flatMap { try? JSONValue(parsing: $0) } ?? .null
        }
        let nowPlaying = document(topics.nowPlaying)
        return MPRISInputs(
            nowPlaying: nowPlaying == .null ? ["state": "stopped"] : nowPlaying, queue: document(topics.queue),
            volume: document(topics.volume), commands: commandCenter.capabilitiesDocument,
            playback: playback?.latestSnapshot?.snapshot)
    }

    func currentPicture() -> MPRISPicture? {
        guard let nowPlaying = retained.current(topics.nowPlaying).flatMap({ try? JSONValue(parsing: $0) }),
              let topic = nowPlaying["artwork"]?["topic"]?.stringValue, let bytes = retained.current(topic), !bytes.isEmpty
        else { return nil }
        return MPRISPicture(key: String(topic.split(separator: "/").last ?? "artwork"), bytes: bytes)
    }

    func queueEntries() async -> [MPRISQueueEntry] {
        guard let playback else { return [] }
        return await playback.currentQueue.playOrder.map { item in
            let info = NowPlayingInfo(
                state: .paused, timestamp: 0, elapsedPlaybackTime: 0, playbackRate: 0, playbackDuration: item.duration,
                metadata: NowPlayingMetadata(item: item), isLiveStream: item.isLiveStream, identifier: item.identifier)
            return MPRISQueueEntry(document: info.json, location: item.uri, artworkKey: item.userInfo[QueueItemMaker.artworkKeyInfo])
        }
    }

    func catalogPicture(key: String) async -> [UInt8]? {
        guard let blob = try? await artworkStore?.artwork(key: key) else { return nil }
        return [UInt8](blob.data)
    }
}
