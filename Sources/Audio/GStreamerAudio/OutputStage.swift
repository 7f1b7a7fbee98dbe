import CGStreamer
import Playback
import Synchronization

/// The engine's one gain stage: sets the output's `volume` element to `OutputGain.amplitude` for the item
/// being heard, as the audio reaches it.
///
/// A pad probe on the volume element's sink pad sees the stream in order: each STREAM_START there is the
/// moment an item (a gapless successor too) reaches the output, so its loudness gain starts with its first
/// sample and not when the bus message has made its way to the engine; and each buffer advances the speed
/// ramp by the audio it carries, so the ramp follows what is heard, paused or not. Steps are one buffer
/// apart (10 to 25 ms of audio), each a small fraction of a decibel within a ramp.
///
/// Threading: called from the engine's executor, playbin's streaming thread (`about-to-finish`, the
/// probe), each access one short critical section. The volume element is borrowed: the pipeline owns it
/// and removes the probe with it.
final class OutputStage: @unchecked Sendable {
    private struct State {
        var gain = OutputGain()
        /// The speed gain's value now, on its way to `gain.speedDb`.
        var speedDb = 0.0
        var rampFrom = 0.0
        /// Seconds of audio played since the ramp began.
        var rampElapsed = 0.0
        /// The gain of the item being heard, and of the gapless successor playbin was given.
        var item = ItemGain.unity
        var upcoming: ItemGain?
        var streamID: String?
        var itemGains: [PlaybackToken: ItemGain] = [:]
        var applied = -1.0
    }

    private let state = Mutex(State())
    private let volume: UnsafeMutablePointer<GstElement>

    init(volume: UnsafeMutablePointer<GstElement>) {
        self.volume = volume
        mn_object_set_double(volume, "volume", 1)
    }

    /// Installs the probe; the stage must outlive the volume element (the pipeline holds both).
    func attach() {
        guard let pad = gst_element_get_static_pad(volume, "sink") else { return }
        defer { mn_object_unref(pad) }
        let context = Unmanaged.passRetained(self).toOpaque()
        let mask = GstPadProbeType(GST_PAD_PROBE_TYPE_BUFFER.rawValue | GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM.rawValue)
        gst_pad_add_probe(pad, mask, outputProbe, context, releaseStage)
    }

    // MARK: - From the engine

    /// New session factors: level, duck and mute apply at once; a new speed target starts a ramp.
    func set(_ gain: OutputGain) {
        state.withLock { state in
            if gain.speedDb != state.gain.speedDb {
                state.rampFrom = state.speedDb
                state.rampElapsed = 0
            }
            state.gain = gain
            apply(&state)
        }
    }

    func remember(_ gain: ItemGain, for token: PlaybackToken) {
        state.withLock { $0.itemGains[token] = gain }
    }

    /// A fresh load under `token`: nothing streams yet, so its gain applies now.
    func loaded(_ token: PlaybackToken) {
        state.withLock { state in
            state.itemGains = state.itemGains.filter { $0.key >= token }
            state.item = state.itemGains[token] ?? .unity
            state.upcoming = nil
            state.streamID = nil
            apply(&state)
        }
    }

    /// Called in `about-to-finish` with the successor playbin was just given (nil: none); its gain waits
    /// for its STREAM_START at the output.
    func queued(_ token: PlaybackToken?) {
        state.withLock { state in
            state.upcoming = token.map { state.itemGains[$0] ?? .unity }
        }
    }

    // MARK: - From the streaming thread

    fileprivate func streamStarted(id: String?) {
        state.withLock { state in
            defer { state.streamID = id }
            // The load's own first stream, or the same stream again (a repeat of the same file has the
            // same gain anyway).
            guard state.streamID != nil, state.streamID != id, let upcoming = state.upcoming else { return }
            state.item = upcoming
            state.upcoming = nil
            apply(&state)
        }
    }

    fileprivate func advance(bySeconds seconds: Double) {
        state.withLock { state in
            if state.speedDb != state.gain.speedDb {
                state.rampElapsed += seconds
                let done = min(1, state.rampElapsed / OutputGain.rampSeconds)
                state.speedDb = done >= 1 ? state.gain.speedDb : state.rampFrom + (state.gain.speedDb - state.rampFrom) * done
            }
            apply(&state)
        }
    }

    /// Under the lock, so two threads never set the element out of order.
    private func apply(_ state: inout State) {
        let amplitude = state.gain.amplitude(speedDb: state.speedDb, item: state.item)
        guard amplitude != state.applied else { return }
        state.applied = amplitude
        mn_object_set_double(volume, "volume", amplitude)
    }
}

/// The probe on the volume element's sink pad: buffers advance the ramp, STREAM_START switches the item.
private let outputProbe: @convention(c) (
    UnsafeMutablePointer<GstPad>?, UnsafeMutablePointer<GstPadProbeInfo>?, gpointer?
) -> GstPadProbeReturn = { _, info, context in
    guard let info, let context, let data = info.pointee.data else { return GST_PAD_PROBE_OK }
    let stage = Unmanaged<OutputStage>.fromOpaque(context).takeUnretainedValue()
    if info.pointee.type.rawValue & GST_PAD_PROBE_TYPE_BUFFER.rawValue != 0 {
        let buffer = data.assumingMemoryBound(to: GstBuffer.self)
        let duration = buffer.pointee.duration
        // Decoders stamp durations; a buffer without one counts as a typical 20 ms.
        let seconds = duration == mn_clock_time_none() ? 0.02 : Double(duration) / Double(mn_gst_second())
        stage.advance(bySeconds: seconds)
    } else {
        let event = data.assumingMemoryBound(to: GstEvent.self)
        guard event.pointee.type == GST_EVENT_STREAM_START else { return GST_PAD_PROBE_OK }
        var id: UnsafePointer<gchar>?
        gst_event_parse_stream_start(event, &id)
        stage.streamStarted(id: id.map { String(cString: $0) })
    }
    return GST_PAD_PROBE_OK
}

/// Destroy notify of the probe: drops the reference it held on the stage.
private let releaseStage: @convention(c) (gpointer?) -> Void = { context in
    guard let context else { return }
    Unmanaged<OutputStage>.fromOpaque(context).release()
}
