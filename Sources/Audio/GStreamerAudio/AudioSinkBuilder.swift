import CGStreamer
import Logging
import Playback

/// The element playbin renders into, built from an `AudioSinkDescription`: the output, with the engine's
/// volume element right in front of it.
///
/// Ownership: `element` and `volume` are strong (non-floating) references owned by this value's holder, who
/// unrefs them after the pipeline reached NULL. The engine keeps `element` to tell output errors (`.device`)
/// from item errors. Package-visible so the benchmarks' bare playbin renders into the very same output.
package struct AudioSink {
    package let element: UnsafeMutablePointer<GstElement>
    /// The volume (ducking) control, inside `element`.
    package let volume: UnsafeMutablePointer<GstElement>
    /// Set for `wav:` sinks, so the engine can close the file on shutdown (and announcements, and the
    /// benchmarks' bare clips, can mix into it).
    package let wavWriter: WAVFileWriter?
    /// Set when the output is a sound server's stream (`pulse`, or a description with a pulsesink in it).
    let soundServer: SoundServerStream?

    package static func make(_ description: AudioSinkDescription, logger: Logger) throws(AudioError) -> AudioSink {
        try make(description, mixingInto: nil, logger: logger)
    }

    /// A second output of the same kind for announcements: a second stream into the same device, which
    /// the sound server (or ALSA's dmix) mixes with the music; a `wav:` output mixes it into the music's
    /// file through `writer`. A sound server's stream has the `media.role` `role`, and is named `title`
    /// until a load names it otherwise (see `StreamNaming`).
    package static func make(_ description: AudioSinkDescription, mixingInto writer: WAVFileWriter?,
                             role: String = SoundServer.musicRole, title: String? = nil, logger: Logger)
        throws(AudioError) -> AudioSink {
        let output: UnsafeMutablePointer<GstElement>
        var writer = writer
        switch description {
        case .fake:
            output = try realTimeFakeSink()
        case .soundServer(let sink):
            output = try SoundServer.makeSink(device: sink, role: role)
        case .automatic:
            output = try automaticSink(logger: logger)
        case .wav(let path):
            if let shared = writer {
                output = try wavSink(into: shared, handoff: wavMixHandoff)
            } else {
                let created = try WAVFileWriter(path: path, logger: logger)
                output = try wavSink(into: created, handoff: wavHandoff)
                writer = created
            }
        case .pipeline(let text):
            output = try parseBin(text)
        }
        let server = SoundServerStream(in: output, role: role, title: title)
        let (bin, volume) = try withVolume(output)
        return AudioSink(element: bin, volume: volume, wavWriter: writer, soundServer: server)
    }

    /// Puts a volume element right in front of `output`, in one bin. Behind playsink's audio queue, which
    /// holds about a second of decoded audio, a change of volume (ducking) is heard at once; in front of
    /// it (as playbin's audio filter or soft volume) it was heard a queue's length later. Takes over the
    /// caller's reference to `output`.
    private static func withVolume(_ output: UnsafeMutablePointer<GstElement>) throws(AudioError)
        -> (bin: UnsafeMutablePointer<GstElement>, volume: UnsafeMutablePointer<GstElement>) {
        defer { mn_object_unref(output) }  // from here on the bin holds it
        let volume = try makeElement("volume")
        guard let bin = gst_bin_new("medianode-output") else {
            mn_object_unref(volume)
            throw AudioError(.engine, "cannot create the output bin")
        }
        gst_object_ref_sink(bin)
        // Neither element is floating, so the bin takes references of its own.
        gst_bin_add(gcast(bin), volume)
        gst_bin_add(gcast(bin), output)
        let target = gst_element_get_static_pad(volume, "sink")
        let linked = gst_element_link(volume, output) != 0
        if let target, linked, let ghost = gst_ghost_pad_new("sink", target) {
            gst_element_add_pad(bin, ghost)
            mn_object_unref(target)
            return (bin, volume)
        }
        if let target { mn_object_unref(target) }
        mn_object_unref(volume)
        mn_object_unref(bin)
        throw AudioError(.engine, "the audio output accepts no raw audio from a volume element")
    }

    // MARK: - Kinds of sink

    /// `sync=true` makes the sink wait for the clock, so positions and ends of stream happen in real time.
    private static func realTimeFakeSink() throws(AudioError) -> UnsafeMutablePointer<GstElement> {
        let sink = try makeElement("fakesink")
        mn_object_set_bool(sink, "sync", 1)
        // The last-sample copy would pin one buffer for nothing.
        mn_object_set_bool(sink, "enable-last-sample", 0)
        return sink
    }

    /// autoaudiosink picks its device when it reaches READY and, finding none, silently renders into a
    /// fake sink of its own. Probe it now, so the log says why nothing is heard, and use our real-time
    /// fake sink instead.
    private static func automaticSink(logger: Logger) throws(AudioError) -> UnsafeMutablePointer<GstElement> {
        let auto = try makeElement("autoaudiosink")
        let probe = gst_element_set_state(auto, GST_STATE_READY)
        let chosen = firstChildFactoryName(of: auto)
        if probe != GST_STATE_CHANGE_FAILURE, let chosen, chosen != "fakesink" {
            logger.info("audio output: autoaudiosink chose \(chosen)")
            gst_element_set_state(auto, GST_STATE_NULL)
            return auto
        }
        gst_element_set_state(auto, GST_STATE_NULL)
        mn_object_unref(auto)
        logger.warning("no audio output device could be opened; playing into a real-time fake sink")
        return try realTimeFakeSink()
    }

    /// Converts whatever playbin produces to the WAV's one format and hands each rendered buffer to Swift.
    /// The fakesink's `sync=true` means a buffer is handed over when it is played, not when it is decoded.
    private static func wavSink(into writer: WAVFileWriter, handoff: WAVHandoff) throws(AudioError) -> UnsafeMutablePointer<GstElement> {
        let caps = "audio/x-raw,format=S16LE,layout=interleaved,rate=\(WAVFileWriter.sampleRate),"
            + "channels=\(WAVFileWriter.channels)"
        let bin = try parseBin(
            "audioconvert ! audioresample ! capsfilter caps=\"\(caps)\" ! "
                + "fakesink name=wavout sync=true signal-handoffs=true enable-last-sample=false")
        guard let fakesink = gst_bin_get_by_name(gcast(bin), "wavout") else {
            mn_object_unref(bin)
            throw AudioError(.engine, "the WAV sink has no output element")
        }
        defer { mn_object_unref(fakesink) }
        let context = Unmanaged.passRetained(writer).toOpaque()
        mn_signal_connect(fakesink, "handoff", unsafeBitCast(handoff, to: GCallback.self), context, releaseWriter)
        return bin
    }

    // MARK: - Helpers

    /// Creates an element and takes ownership of its floating reference.
    static func makeElement(_ factory: String) throws(AudioError) -> UnsafeMutablePointer<GstElement> {
        guard let element = gst_element_factory_make(factory, nil) else {
            throw AudioError(.engine, "GStreamer element \(factory) is not installed")
        }
        gst_object_ref_sink(element)
        return element
    }

    static func parseBin(_ description: String) throws(AudioError) -> UnsafeMutablePointer<GstElement> {
        var error: UnsafeMutablePointer<GError>?
        let bin = gst_parse_bin_from_description(description, 1, &error)
        guard let bin else {
            throw AudioError(.engine, "bad audio sink \"\(description)\": \(GStreamer.consume(error))")
        }
        if error != nil { _ = GStreamer.consume(error) }  // a recoverable warning; the bin is usable
        gst_object_ref_sink(bin)
        return gcast(bin)
    }

    private static func firstChildFactoryName(of bin: UnsafeMutablePointer<GstElement>) -> String? {
        let binStruct = gcast(bin, to: GstBin.self)
        guard let child = binStruct.pointee.children?.pointee.data else { return nil }
        let element = child.assumingMemoryBound(to: GstElement.self)
        return mn_element_factory_name(element).map { String(cString: $0) }
    }
}

private typealias WAVHandoff = @convention(c) (
    UnsafeMutablePointer<GstElement>?, UnsafeMutablePointer<GstBuffer>?, UnsafeMutablePointer<GstPad>?, gpointer?
) -> Void

/// fakesink's "handoff": called on the streaming thread for every buffer as it is rendered.
private let wavHandoff: WAVHandoff = { _, buffer, _, context in
    guard let buffer, let context else { return }
    let writer = Unmanaged<WAVFileWriter>.fromOpaque(context).takeUnretainedValue()
    var map = GstMapInfo()
    guard gst_buffer_map(buffer, &map, GST_MAP_READ) != 0 else { return }
    defer { gst_buffer_unmap(buffer, &map) }
    writer.append(UnsafeRawBufferPointer(start: map.data, count: Int(map.size)))
}

/// The same for an announcement's output: its audio is mixed into the music's file.
private let wavMixHandoff: WAVHandoff = { _, buffer, _, context in
    guard let buffer, let context else { return }
    let writer = Unmanaged<WAVFileWriter>.fromOpaque(context).takeUnretainedValue()
    var map = GstMapInfo()
    guard gst_buffer_map(buffer, &map, GST_MAP_READ) != 0 else { return }
    defer { gst_buffer_unmap(buffer, &map) }
    writer.mix(UnsafeRawBufferPointer(start: map.data, count: Int(map.size)))
}

/// Destroy notify of the handoff connection: drops the reference the signal held on the writer.
private let releaseWriter: @convention(c) (gpointer?, UnsafeMutablePointer<GClosure>?) -> Void = { context, _ in
    guard let context else { return }
    Unmanaged<WAVFileWriter>.fromOpaque(context).release()
}
