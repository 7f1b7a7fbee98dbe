// MARK: - What the engine's facts mean

extension PlaybackController {
    /// Handles one fact in its own turn. Facts stamped with a token that is neither the current load
    /// nor the preloaded one are stale and ignored.
    func handle(_ fact: AudioFact) async {
        await exclusively {
            switch fact {
            case let .streamStarted(token):
                await transport.streamStarted(token)
            case let .endOfStream(token) where token == loads.current:
                await transport.endOfStream()
            case let .error(token, error):
                await transport.failed(token, error)
            case let .tags(token, newTags) where token == loads.current:
                loads.tags.merge(newTags)
                playhead.publish()
            case let .duration(token, newDuration) where token == loads.current:
                guard queue.currentItem?.isLiveStream == false else { break }
                loads.duration = newDuration
                playhead.publish()
            case let .stateChanged(.playing, token) where token == loads.current:
                // The pipeline starts moving some time after play() or a seek returns (longer under load,
                // seconds over a slow network); pin the position to the moment it really does, so readers
                // extrapolate from the truth.
                playhead.seeking.landing = nil
                guard playhead.state == .playing else { break }
                await playhead.reanchor()
                playhead.publish()
            case let .buffering(token, percent) where token == loads.current:
                // A stream that ran dry while it played: counted once per stall, not per buffering message.
                if loads.buffering(percent: percent), playhead.state == .playing, let item = queue.currentItem {
                    streams.emit(.stalled(identifier: item.identifier))
                }
            case let .focusChanged(hasFocus):
                await transport.focusChanged(hasFocus: hasFocus)
            case let .outputLost(message):
                await transport.outputLost(message)
            case .outputRestored:
                await transport.outputRestored()
            default:
                // Other state changes and buffering: the controller's own state is authoritative, since it
                // changes only through its operations; stale tokens land here too.
                break
            }
        }
        handledFactCount += 1
    }
}
