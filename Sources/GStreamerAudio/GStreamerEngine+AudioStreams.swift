import CGStreamer
import Playback

// MARK: - Audio streams as language options

extension GStreamerEngine {
    /// The current item's audio streams with the language each one's tags name.
    public func audioStreams() async -> [AudioStreamOption] {
        guard loaded != nil, !pipeline.isReleased else { return [] }
        let playbin = pipeline.playbin
        let count = mn_object_get_int(playbin, "n-audio")
        let active = mn_object_get_int(playbin, "current-audio")
        return (0..<max(0, count)).map { index in
            AudioStreamOption(index: Int(index), languageTag: language(ofStream: index),
                              isActive: index == active)
        }
    }

    public func selectAudioStream(_ index: Int) async throws(AudioError) {
        try checkLoaded()
        let count = Int(mn_object_get_int(pipeline.playbin, "n-audio"))
        guard (0..<count).contains(index) else {
            throw AudioError(.engine, "no audio stream \(index) (the item has \(count))")
        }
        mn_object_set_int(pipeline.playbin, "current-audio", gint(index))
        // The selector switches only for data not yet queued, so without a flush the old language plays
        // on for as long as the queues hold (seconds). Flush by seeking to where we are, but only while
        // playing: the same seek while paused can deadlock playbin's selector (GStreamer 1.22).
        var state = GST_STATE_VOID_PENDING
        gst_element_get_state(pipeline.playbin, &state, nil, 0)
        if state == GST_STATE_PLAYING {
            _ = applyRate(rate, waitSeconds: 5)
        } else {
            streamSwitchNeedsFlush = true
        }
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
