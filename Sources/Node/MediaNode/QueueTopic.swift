import MediaJSON
import Playback

/// `P/queue`: the queue owner's topic, marked from each snapshot's queue summary.
struct QueueTopic: PlaybackObserver {
    let retained: RetainedPublisher
    let topic: String

    func playbackChanged(_ snapshot: PlaybackSnapshot, itemChanged: Bool) async {
        let queue = snapshot.queue
        let document: JSONValue = [
            "identifiers": .array(queue.identifiers.map(JSONValue.string)), "index": JSONValue(queue.index),
            "repeatMode": .string(queue.repeatMode.rawValue), "shuffleMode": .string(queue.shuffleMode.rawValue),
        ]
        retained.publish(topic, document.jsonBytes)
    }
}
