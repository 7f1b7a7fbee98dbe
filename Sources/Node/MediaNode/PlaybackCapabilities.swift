import ContentTree
import Playback
import RemoteCommands

/// What `P/commands` shows of playback: the rate (and so which rates are allowed, S17), the repeat and
/// shuffle modes, whether an item (a live one, one with chapters) is loaded, and the current item's marks.
struct PlaybackCapabilities: PlaybackObserver {
    let commandCenter: RemoteCommandCenter
    let feedback: FeedbackBook
    let capabilities: CapabilitiesPublisher

    func playbackChanged(_ snapshot: PlaybackSnapshot, itemChanged: Bool) async {
        commandCenter.setCurrentPlaybackRate(snapshot.rate)
        commandCenter.setParameter(
            "currentRepeatType", .string(snapshot.queue.repeatMode.rawValue), for: RemoteCommand.changeRepeatMode)
        commandCenter.setParameter(
            "currentShuffleType", .string(snapshot.queue.shuffleMode.rawValue), for: RemoteCommand.changeShuffleMode)
        commandCenter.setNowPlaying(isItemLoaded: snapshot.item != nil, isLiveStream: snapshot.isLiveStream)
        commandCenter.setCurrentItemHasChapters(snapshot.item?.chapters.isEmpty == false)
        if itemChanged {
            // A read of the catalog file, which its writes do not hold up (WAL).
            var marks = ItemFeedback()
            if let item = snapshot.item { marks = await feedback.feedback(for: item.identifier) }
            commandCenter.showFeedback(marks)
        }
        // Here, not only when the capability loop hears of the change: it is part of what the reply waits for.
        capabilities.mark()
    }
}
