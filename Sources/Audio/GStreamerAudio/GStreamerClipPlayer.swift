import CGStreamer
import Foundation
import Logging
import Playback
import Synchronization

/// Plays announcement clips in a pipeline of their own, into a second output of the engine's kind (see
/// `AudioSink.make(_:mixingInto:logger:)`): the music's playbin is never touched, so its position, gapless
/// switches and rate stay exactly as they were, and whatever the music does the clip goes on.
///
/// A file plays through a playbin (any format the node plays); text through eSpeak NG's GStreamer element.
///
/// On a sound server each clip is a stream of its own in the announcement role, so the car's policy ducks or
/// corks the music under it (or the clip under a call) by role; a clip the server corks waits, and plays on
/// when the server lets it.
public final class GStreamerClipPlayer: ClipPlayer {
    /// The announcements' `media.role` unless told otherwise: the one the policies of PulseAudio and
    /// WirePlumber duck music under.
    public static let defaultRole = "event"

    public let canSpeak: Bool
    private let sinkDescription: AudioSinkDescription
    private let wavWriter: WAVFileWriter?
    private let role: String
    private let logger: Logger

    /// Announcements into the output of `engine`, as streams in `role` on a sound server.
    public init(sharingOutputOf engine: GStreamerEngine, role: String = GStreamerClipPlayer.defaultRole,
                logger: Logger = Logger(label: "medianode.announcements")) {
        sinkDescription = engine.sinkDescription
        wavWriter = engine.wavWriter
        self.role = role
        self.logger = logger
        canSpeak = Self.hasSpeech()
    }

    /// Whether `role` can name the announcements' streams (a plain word: letters, digits, `-`, `_`).
    public static func isValidRole(_ role: String) -> Bool { SoundServer.isValidRole(role) }

    /// Whether eSpeak NG's GStreamer element is installed.
    public static func hasSpeech() -> Bool {
        guard (try? GStreamer.initialize()) != nil, let factory = gst_element_factory_find("espeak") else { return false }
        gst_object_unref(UnsafeMutableRawPointer(factory))
        return true
    }

    public func play(_ clip: Clip, amplitude: Double, started: @escaping @Sendable () -> Void) async -> ClipOutcome {
        let run: ClipRun
        do {
            run = try ClipRun(clip, amplitude: amplitude, sink: sinkDescription, mixingInto: wavWriter, role: role,
                              started: started, logger: logger)
        } catch {
            return .failed(error.message)
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                run.start { continuation.resume(returning: $0) }
            }
        } onCancel: {
            run.cancel()
        }
    }
}

/// One clip's pipeline, from building it to NULL, watched by a thread of its own that waits on its bus.
private final class ClipRun: @unchecked Sendable {
    /// A clip that has produced no audio after this long is given up (a stalled source).
    static let startTimeoutSeconds = 15.0

    private let pipeline: UnsafeMutablePointer<GstElement>
    private let sink: AudioSink
    private let started: @Sendable () -> Void
    private let logger: Logger
    private let cancelled = Atomic<Bool>(false)
    private let heard = Atomic<Bool>(false)

    init(_ clip: Clip, amplitude: Double, sink description: AudioSinkDescription, mixingInto writer: WAVFileWriter?,
         role: String, started: @escaping @Sendable () -> Void, logger: Logger) throws(AudioError) {
        try GStreamer.initialize()
        self.started = started
        self.logger = logger
        sink = try AudioSink.make(description, mixingInto: writer, role: role, title: clip.streamName, logger: logger)
        mn_object_set_double(sink.volume, "volume", min(1, max(0, amplitude)))
        do {
            switch clip {
            case let .file(path):
                pipeline = try Self.playbin(path: path, sink: sink)
            case let .speech(text, language):
                pipeline = try Self.speech(text: text, language: language, sink: sink)
            }
        } catch {
            mn_object_unref(sink.element)
            mn_object_unref(sink.volume)
            throw error
        }
        watchFirstBuffer()
    }

    private static func playbin(path: String, sink: AudioSink) throws(AudioError) -> UnsafeMutablePointer<GstElement> {
        let playbin = try AudioSink.makeElement("playbin")
        let uri = try GStreamer.uri(from: path)
        mn_object_set_string(playbin, "uri", uri)
        mn_object_set_object(playbin, "audio-sink", sink.element)
        // Audio only, without playsink's soft volume: the level is the sink's volume element.
        let video: gint = 1 << 0, text: gint = 1 << 2, visualisation: gint = 1 << 3, softVolume: gint = 1 << 4
        mn_object_set_int(playbin, "flags", mn_object_get_int(playbin, "flags") & ~(video | text | visualisation | softVolume))
        return playbin
    }

    /// The espeak element starts eSpeak NG for the whole process in its first instance, with a guard that is not
    /// thread-safe: a second instance made meanwhile on another thread read its voices and sample rate before
    /// they were set (GLib's "g_value_array_copy: assertion 'value_array != NULL'") and crashed in its first
    /// buffer. Two nodes in one process announcing at once did so. The first instance is made here, once, while
    /// every other caller waits.
    private static let speechStarted: Void = {
        if let first = gst_element_factory_make("espeak", nil) {
            gst_object_ref_sink(UnsafeMutableRawPointer(first))
            gst_object_unref(UnsafeMutableRawPointer(first))
        }
    }()

    private static func speech(text: String, language: String?, sink: AudioSink) throws(AudioError) -> UnsafeMutablePointer<GstElement> {
        _ = speechStarted
        let voice = try AudioSink.parseBin("espeak name=speech ! audioconvert ! audioresample")
        guard let pipeline = gst_pipeline_new("medianode-speech") else {
            mn_object_unref(voice)
            throw AudioError(.engine, "cannot create the speech pipeline")
        }
        gst_object_ref_sink(pipeline)
        if let speech = gst_bin_get_by_name(gcast(voice), "speech") {
            mn_object_set_string(speech, "text", text)
            if let language { mn_object_set_string(speech, "voice", language) }
            mn_object_unref(speech)
        }
        gst_bin_add(gcast(pipeline), voice)
        gst_bin_add(gcast(pipeline), sink.element)
        mn_object_unref(voice)  // the pipeline holds its own reference now
        guard gst_element_link(voice, sink.element) != 0 else {
            mn_object_unref(pipeline)
            throw AudioError(.engine, "the speech voice cannot feed the audio output")
        }
        return pipeline
    }

    /// The first buffer into the volume element is the clip's first audio reaching the output.
    private func watchFirstBuffer() {
        guard let pad = gst_element_get_static_pad(sink.volume, "sink") else { return }
        defer { mn_object_unref(pad) }
        let context = Unmanaged.passRetained(self).toOpaque()
        gst_pad_add_probe(pad, GST_PAD_PROBE_TYPE_BUFFER, firstBufferProbe, context, releaseRun)
    }

    fileprivate func firstBuffer() {
        guard !heard.exchange(true, ordering: .relaxed) else { return }
        started()
    }

    func start(_ finished: @escaping @Sendable (ClipOutcome) -> Void) {
        let thread = Thread { [self] in finished(watch()) }
        thread.name = "medianode.announcement"
        thread.start()
    }

    func cancel() {
        cancelled.store(true, ordering: .relaxed)
    }

    /// Plays the clip to its end, a failure or a cancel; always leaves the pipeline at NULL, released.
    private func watch() -> ClipOutcome {
        let bus = gst_element_get_bus(pipeline)
        defer {
            gst_element_set_state(pipeline, GST_STATE_NULL)
            if let bus { mn_object_unref(bus) }
            mn_object_unref(pipeline)
            mn_object_unref(sink.element)
            mn_object_unref(sink.volume)
        }
        guard let bus else { return .failed("the announcement pipeline has no bus") }
        guard gst_element_set_state(pipeline, GST_STATE_PLAYING) != GST_STATE_CHANGE_FAILURE else {
            return .failed(Self.firstError(on: bus) ?? "the announcement could not start")
        }
        let beganAt = Date()
        let mask = GstMessageType(GST_MESSAGE_EOS.rawValue | GST_MESSAGE_ERROR.rawValue | GST_MESSAGE_REQUEST_STATE.rawValue)
        var corked = false
        while !cancelled.load(ordering: .relaxed) {
            // A short wait, so a cancel is seen within 20 ms.
            if let message = gst_bus_timed_pop_filtered(bus, 20_000_000, mask) {
                defer { mn_message_unref(message) }
                switch mn_message_type(message) {
                case GST_MESSAGE_EOS:
                    return heard.load(ordering: .relaxed) ? .finished : .failed("the clip has no audio")
                case GST_MESSAGE_REQUEST_STATE:
                    // The sound server's policy corks the clip (under a call) and lets it go again.
                    var requested = GST_STATE_VOID_PENDING
                    gst_message_parse_request_state(message, &requested)
                    guard requested == GST_STATE_PAUSED || requested == GST_STATE_PLAYING else { continue }
                    corked = requested == GST_STATE_PAUSED
                    gst_element_set_state(pipeline, requested)
                    continue
                default:
                    return .failed(Self.errorText(message))
                }
            }
            if !heard.load(ordering: .relaxed), !corked, Date().timeIntervalSince(beganAt) > Self.startTimeoutSeconds {
                return .failed("no audio after \(Int(Self.startTimeoutSeconds)) s")
            }
        }
        return .cancelled
    }

    private static func firstError(on bus: UnsafeMutablePointer<GstBus>) -> String? {
        guard let message = gst_bus_pop_filtered(bus, GST_MESSAGE_ERROR) else { return nil }
        defer { mn_message_unref(message) }
        return errorText(message)
    }

    private static func errorText(_ message: UnsafeMutablePointer<GstMessage>) -> String {
        var error: UnsafeMutablePointer<GError>?
        var debug: UnsafeMutablePointer<gchar>?
        gst_message_parse_error(message, &error, &debug)
        g_free(debug)
        return GStreamer.consume(error)
    }
}

private let firstBufferProbe: @convention(c) (
    UnsafeMutablePointer<GstPad>?, UnsafeMutablePointer<GstPadProbeInfo>?, gpointer?
) -> GstPadProbeReturn = { _, _, context in
    guard let context else { return GST_PAD_PROBE_REMOVE }
    Unmanaged<ClipRun>.fromOpaque(context).takeUnretainedValue().firstBuffer()
    return GST_PAD_PROBE_REMOVE
}

private let releaseRun: @convention(c) (gpointer?) -> Void = { context in
    guard let context else { return }
    Unmanaged<ClipRun>.fromOpaque(context).release()
}

extension Clip {
    /// The name a sound server shows for the clip's stream: the text spoken, or what it is.
    var streamName: String {
        switch self {
        case .file: "Announcement"
        case let .speech(text, _): text.count > 80 ? String(text.prefix(79)) + "…" : text
        }
    }
}
