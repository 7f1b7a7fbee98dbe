import CGStreamer
import Playback

// MARK: - The end of an item whose gapless successor failed

extension GStreamerEngine {
    /// How often the tail watch looks at the pipeline, how long the position must stand still to count
    /// as the end, and how long a state change may hang before the engine reopens the item.
    ///
    /// A sink reports no position past the last buffer it rendered, so a streaming thread starved of the
    /// CPU for a moment (a loaded machine) stands the position still too. Near the end, or with no duration
    /// to compare, a short stall is the end; more than `tailNearEndSeconds` short of a known duration it
    /// must last `tailStallPollsShortOfEnd`, or a busy moment would cut the rest of the item.
    static let tailPollMilliseconds = 100
    static let tailStallPolls = 3
    static let tailStallPollsShortOfEnd = 30
    static let tailNearEndSeconds = 1.0
    static let tailWedgedPolls = 10

    /// playbin opened the next item during the gapless switch and that failed. playbin keeps the current
    /// item's end of stream back for the switch, so without this the current item would never end and
    /// playback would hang. Its queued tail still plays: once the position stops moving while playing
    /// (or reaches the duration) the engine reports the end of stream itself, and the core moves on.
    /// When the switch failed during the preroll, the pipeline never reaches PLAYING at all; then the
    /// engine reopens the current item where it was, without the successor.
    func watchTail(of token: PlaybackToken) async {
        var lastPosition: gint64 = -1
        var stalledPolls = 0
        var wedgedPolls = 0
        while true {
            do {
                try await Task.sleep(for: .milliseconds(Self.tailPollMilliseconds))
            } catch {
                return
            }
            // A new load, a stop or a later switch ended this item some other way.
            guard loaded == token, !pipeline.isReleased else { return }
            var state = GST_STATE_VOID_PENDING, pending = GST_STATE_VOID_PENDING
            gst_element_get_state(pipeline.playbin, &state, &pending, 0)
            var position: gint64 = -1, duration: gint64 = -1
            _ = gst_element_query_position(pipeline.playbin, GST_FORMAT_TIME, &position)
            _ = gst_element_query_duration(pipeline.playbin, GST_FORMAT_TIME, &duration)
            if pending != GST_STATE_VOID_PENDING {
                wedgedPolls += 1
                if wedgedPolls >= Self.tailWedgedPolls {
                    reopenWithoutSuccessor(token, at: position, target: pending)
                    return
                }
                continue
            }
            wedgedPolls = 0
            guard state == GST_STATE_PLAYING else {
                // Paused in the tail: nothing is expected to move.
                stalledPolls = 0
                lastPosition = position
                continue
            }
            let atEnd = duration > 0 && position >= duration - 20_000_000
            let shortOfEnd = duration > 0 && position < duration - GStreamer.clockTime(seconds: Self.tailNearEndSeconds)
            stalledPolls = position == lastPosition ? stalledPolls + 1 : 0
            lastPosition = position
            if atEnd || stalledPolls >= (shortOfEnd ? Self.tailStallPollsShortOfEnd : Self.tailStallPolls) {
                let known = duration > 0 ? "\(Double(duration) / 1e9) s" : "an unknown duration"
                let why = atEnd ? "at its end" : "still for \(stalledPolls * Self.tailPollMilliseconds) ms"
                logger.debug(
                    "audio: the item after \(token) failed to open; ending \(token) after its tail, at \(Double(position) / 1e9) s of \(known), \(why)")
                pipeline.report(.endOfStream(token))
                return
            }
        }
    }

    /// Loads the current item again at `position`, with its audio stream and no successor, under the same
    /// token: the core sees the same item go on, and reaches the failed one by the item's own end of stream.
    private func reopenWithoutSuccessor(_ token: PlaybackToken, at position: gint64, target: GstState) {
        guard let uri = loadedURI else { return }
        logger.debug("audio: the item after \(token) failed to open and stalled the pipeline; reopening \(token)")
        pendingAudioStream = chosenAudioStream()
        takeDownPlaybin()
        pipeline.shared.state.withLock { state in
            state.next = nil
            state.switches = []
            state.load = token
        }
        successor = nil
        pipeline.post(.loaded(token))
        mn_object_set_string(pipeline.playbin, "uri", uri)
        guard order(GST_STATE_PAUSED) != GST_STATE_CHANGE_FAILURE else { return }
        if position > 0 || rate != 1.0 {
            _ = waitForSteadyState(seconds: 5)
            _ = gst_element_seek(
                pipeline.playbin, rate, GST_FORMAT_TIME, mn_seek_flags_flush_accurate(),
                GST_SEEK_TYPE_SET, max(0, position), GST_SEEK_TYPE_NONE, -1)
            _ = waitForSteadyState(seconds: 5)
        }
        if target == GST_STATE_PLAYING {
            order(GST_STATE_PLAYING)
            applyPendingAudioStream()
        }
    }
}
