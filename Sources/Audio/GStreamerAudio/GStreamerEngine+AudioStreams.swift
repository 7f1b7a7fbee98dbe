import CGStreamer
import Playback

// MARK: - Audio streams as language options

extension GStreamerEngine {
    /// The current item's audio streams with the language each one's tags name; a stream chosen while
    /// paused already counts as the active one.
    public func audioStreams() async -> [AudioStreamOption] {
        guard loaded != nil, !pipeline.isReleased else { return [] }
        let playbin = pipeline.playbin
        let count = mn_object_get_int(playbin, "n-audio")
        let active = pendingAudioStream ?? Int(mn_object_get_int(playbin, "current-audio"))
        return (0..<max(0, count)).map { index in
            AudioStreamOption(index: Int(index), languageTag: language(ofStream: index),
                              isActive: Int(index) == active)
        }
    }

    /// Switches at once while playing; otherwise remembers the choice and `play` makes it.
    ///
    /// The selector switches only for data not yet queued, so without a flush the old language plays on
    /// for as long as the queues hold (seconds): the switch is followed by a flushing seek to where we are.
    /// That flush is safe only while the output is rendering. playbin's input-selector forwards flushes
    /// from the active stream only, so once it has switched, the old stream's flush no longer reaches the
    /// output queue. Paused, that queue is full and the old stream's decoder thread is blocked on it; the
    /// demuxer's flush then waits for that thread forever (GStreamer 1.22, when the old stream comes first
    /// in the file). Playing, the output drains the queue and lets that thread go. So the selector is not
    /// touched until the pipeline has settled in PLAYING: right after `pause` it still reads PLAYING with
    /// PAUSED pending, which is why the state is read only after it settles.
    public func selectAudioStream(_ index: Int) async throws(AudioError) {
        try checkLoaded()
        let count = Int(mn_object_get_int(pipeline.playbin, "n-audio"))
        guard (0..<count).contains(index) else {
            throw AudioError(.engine, "no audio stream \(index) (the item has \(count))")
        }
        guard isSteadilyPlaying() else {
            pendingAudioStream = index
            return
        }
        pendingAudioStream = nil
        switchAudioStream(to: index)
    }

    /// The stream the listener hears or has chosen, read before the pipeline is taken down and built
    /// again for the same item: playbin then starts over with its first stream. Nil when there is no
    /// choice to keep, so that `play` need not wait for the pipeline to settle to restore it.
    func chosenAudioStream() -> Int? {
        if let pendingAudioStream { return pendingAudioStream }
        guard mn_object_get_int(pipeline.playbin, "n-audio") > 1 else { return nil }
        let current = Int(mn_object_get_int(pipeline.playbin, "current-audio"))
        return current >= 0 ? current : nil
    }

    /// Makes the choice remembered while paused, once `play` has the pipeline playing.
    func applyPendingAudioStream() {
        guard let index = pendingAudioStream, isSteadilyPlaying() else { return }
        pendingAudioStream = nil
        switchAudioStream(to: index)
    }

    /// Only while steadily playing (see `selectAudioStream`).
    private func switchAudioStream(to index: Int) {
        guard Int(mn_object_get_int(pipeline.playbin, "current-audio")) != index else { return }
        mn_object_set_int(pipeline.playbin, "current-audio", gint(index))
        _ = applyRate(rate, waitSeconds: 5)
    }

    /// True once no state change is pending and the pipeline plays. Nothing but the engine's own thread
    /// changes playbin's target state, so this holds until the engine's next pause, stop or load.
    private func isSteadilyPlaying() -> Bool {
        guard waitForSteadyState(seconds: 5) else { return false }
        var state = GST_STATE_VOID_PENDING, pending = GST_STATE_VOID_PENDING
        gst_element_get_state(pipeline.playbin, &state, &pending, 0)
        return state == GST_STATE_PLAYING && pending == GST_STATE_VOID_PENDING
    }

    /// GStreamer carries ISO 639 codes; two-letter ones are already BCP 47, three-letter ones are kept as is.
    private func language(ofStream index: gint) -> String? {
        guard let tags = mn_playbin_audio_tags(pipeline.playbin, index) else { return nil }
        defer { mn_tag_list_unref(tags) }
        var value: UnsafeMutablePointer<gchar>?
        guard gst_tag_list_get_string(tags, GST_TAG_LANGUAGE_CODE, &value) != 0, let value else { return nil }
        defer { g_free(value) }
        let code = String(cString: value)
        return code.isEmpty ? nil : code
    }
}
