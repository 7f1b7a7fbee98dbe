import CGStreamer
import Logging
import Playback

/// The audio engine: one long-lived `playbin` that plays files and URLs, with pitch-preserving rate
/// changes (`scaletempo`), gapless switches and facts reported in order on `facts`.
///
/// Threading: an actor whose executor is a dedicated thread, so GStreamer's blocking calls (state
/// changes, flushing seeks) never run on Swift's cooperative pool. Bus messages are read on a second
/// dedicated thread (`BusReader`); gapless switches happen on playbin's streaming thread.
public actor GStreamerEngine: AudioEngine {
    public nonisolated let facts: AsyncStream<AudioFact>
    public nonisolated let sinkDescription: AudioSinkDescription
    /// The `wav:` output's file, which announcements mix into.
    nonisolated let wavWriter: WAVFileWriter?

    private nonisolated let executor: DedicatedThreadExecutor
    public nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }
    public nonisolated var callExecutor: (any TaskExecutor)? { executor }

    let pipeline: Pipeline
    let logger: Logger
    /// The token of the load in playbin, or nil when stopped.
    var loaded: PlaybackToken?
    /// The URI of the item playing under `loaded`, and of the named gapless successor, so the engine
    /// can reopen the current item on its own (see `watchTail`).
    var loadedURI: String?
    var successor: NextItem?
    /// The rate the user asked for; new loads and gapless switches start at it too.
    var rate = 1.0
    /// An audio stream chosen while not playing, applied by `play` (see `selectAudioStream`).
    var pendingAudioStream: Int?
    /// A seek was accepted and its preroll at the new place has not been waited for (see `seek`).
    var seekIsSettling = false
    /// The last wait for a state change timed out with the change still pending: playbin is stuck (seen
    /// after a seek that lands on the end of an item whose successor is already queued, with a caps
    /// failure on the way). Later waits only look, rather than block the engine again and again for the
    /// whole timeout each, until the change completes or a seek, load or stop starts afresh.
    var stateChangeStalled = false
    /// Set while the sound server is gone (see `GStreamerEngine+SoundServer`), with the task that asks it again.
    var soundServerLoss: SoundServerLoss?
    /// Where the current load was asked to start.
    var loadStart: Double?
    /// How many PAUSED and PLAYING orders playbin was given, and when the last PLAYING was (see `order`).
    var ordersGiven: UInt64 = 0
    var playOrderedAt: ContinuousClock.Instant?
    var soundServerRetry: Task<Void, Never>?
    /// Watches an item held on a sound server (see `watchHeldStream`).
    var heldStreamWatch: Task<Void, Never>?

    /// Builds the pipeline and its output. Runs on the caller's thread; the `auto` sink asks the sound server
    /// and probes the audio device here, which takes a few milliseconds. A sound server that does not answer
    /// yet is no error: the first load says so, and the engine waits for it (see `soundServerLost`).
    public init(sink: AudioSinkDescription = .automatic,
                logger: Logger = Logger(label: "medianode.audio")) throws(AudioError) {
        try GStreamer.initialize()
        let (stream, continuation) = AsyncStream<AudioFact>.makeStream(bufferingPolicy: .unbounded)
        facts = stream
        let output = sink.resolved()
        if sink == .automatic, case .soundServer = output {
            logger.info("audio output: the sound server at \(SoundServer.address)")
        }
        sinkDescription = output
        self.logger = logger
        executor = DedicatedThreadExecutor(name: "medianode.audio.engine")
        pipeline = try Pipeline(sink: output, continuation: continuation, logger: logger)
        wavWriter = pipeline.sink.wavWriter
        pipeline.busReader.start(
            onGaplessSwitch: { [weak self] token in
                guard let self else { return }
                Task { await self.gaplessSwitched(to: token) }
            },
            onSwitchFailed: { [weak self] token in
                guard let self else { return }
                Task { await self.watchTail(of: token) }
            },
            onSoundServerLost: { [weak self] reason in
                guard let self else { return }
                Task { await self.soundServerLost(reason) }
            },
            onPlaying: { [weak self] token in
                guard let self else { return }
                Task { await self.reportPlayingOnceHeard(token) }
            },
            onUnorderedPlaying: { [weak self] token in
                guard let self else { return }
                Task { await self.pauseAgain(token) }
            })
    }

    /// Parses `--audio-sink` (`auto`, `fake`, `wav:PATH` or a gst-launch sink description).
    public init(sink: String, logger: Logger = Logger(label: "medianode.audio")) throws(AudioError) {
        try self.init(sink: AudioSinkDescription(parsing: sink), logger: logger)
    }

    public func shutdown() async {
        soundServerRetry?.cancel()
        heldStreamWatch?.cancel()
        loaded = nil
        pipeline.release()
    }

    public func setItemTitle(_ title: String?, for token: PlaybackToken) async {
        pipeline.shared.soundServer?.naming.remember(title, for: token)
    }

    /// Keeps a user-chosen rate across a gapless switch: playbin starts every new stream at 1.0.
    private func gaplessSwitched(to token: PlaybackToken) {
        guard loaded != nil, !pipeline.isReleased else { return }
        loaded = token
        if successor?.token == token { loadedURI = successor?.uri }
        successor = nil
        pendingAudioStream = nil  // chosen among the previous item's streams
        if rate != 1.0 { _ = applyRate(rate, waitSeconds: 2) }
    }
}

/// Owns every GStreamer object of one engine and releases them in the order GStreamer needs.
///
/// Threading: used from the engine's executor only (and from `deinit`, when nobody else can).
final class Pipeline {
    let playbin: UnsafeMutablePointer<GstElement>
    let bus: UnsafeMutablePointer<GstBus>
    let sink: AudioSink
    /// Our own volume element (a strong reference), at the output end: see `AudioSink`.
    let volume: UnsafeMutablePointer<GstElement>?
    let shared: EngineShared
    let busReader: BusReader
    private let logger: Logger
    private let continuation: AsyncStream<AudioFact>.Continuation
    private(set) var isReleased = false

    init(sink description: AudioSinkDescription, continuation: AsyncStream<AudioFact>.Continuation,
         logger: Logger) throws(AudioError) {
        sink = try AudioSink.make(description, logger: logger)
        let playbin: UnsafeMutablePointer<GstElement>
        let filter: UnsafeMutablePointer<GstElement>
        do {
            playbin = try AudioSink.makeElement("playbin")
            // scaletempo keeps the pitch when the rate changes. The volume element is ours, in the sink,
            // rather than playsink's soft volume: playsink makes a new one for every item and never frees
            // the old one (GStreamer 1.22), which leaks about 4 KiB per item, and puts it ahead of its queue.
            filter = try AudioSink.makeElement("scaletempo")
        } catch {
            mn_object_unref(sink.element)
            mn_object_unref(sink.volume)
            throw error
        }
        self.playbin = playbin
        self.logger = logger
        self.continuation = continuation
        volume = sink.volume
        shared = EngineShared(stage: OutputStage(volume: sink.volume), soundServer: sink.soundServer)
        shared.stage.attach()
        mn_object_set_object(playbin, "audio-sink", sink.element)
        mn_object_set_object(playbin, "audio-filter", filter)
        mn_object_unref(filter)
        mn_object_set_int(playbin, "flags", Self.flags(of: playbin))

        // Keep the bus filled across NULL: markers posted around state changes must not be flushed away.
        gst_pipeline_set_auto_flush_bus(gcast(playbin), 0)
        bus = gst_element_get_bus(playbin)
        mn_engine_filter_bus(bus, playbin)
        busReader = BusReader(bus: bus, playbin: playbin, sink: sink.element, shared: shared,
                              continuation: continuation, logger: logger)
        let context = Unmanaged.passRetained(shared).toOpaque()
        mn_signal_connect(playbin, "about-to-finish", unsafeBitCast(aboutToFinish, to: GCallback.self),
                          context, releaseShared)
    }

    deinit { release() }

    /// Reports a fact the engine itself established (not read from the bus).
    func report(_ fact: AudioFact) {
        continuation.yield(fact)
    }

    /// Leaves a marker between GStreamer's messages; see `BusMarker`.
    func post(_ marker: BusMarker) {
        shared.state.withLock { $0.markers.append(marker) }
        let structure = gst_structure_new_empty(EngineShared.markerName)
        let message = gst_message_new_application(gcast(playbin), structure)
        gst_bus_post(bus, message)
    }

    /// Takes playbin to NULL. After a gapless switch to an item that failed (a dead URL), the first
    /// attempt can fail half-way: the failed source refuses to leave PAUSED while playbin is still
    /// swapping its groups, and playbin would then retry that source on the next load. A second
    /// attempt finds it deactivated and succeeds.
    func stopPlaybin() {
        for attempt in 1...3 {
            guard gst_element_set_state(playbin, GST_STATE_NULL) == GST_STATE_CHANGE_FAILURE else { return }
            logger.debug("audio: the pipeline refused to stop (attempt \(attempt)); trying again")
        }
        logger.error("audio: the pipeline refused to stop three times; the next item may not play")
    }

    /// Stops everything and drops every reference. Safe to call twice.
    func release() {
        guard !isReleased else { return }
        isReleased = true
        stopPlaybin()
        post(.quit)
        busReader.join()
        // Messages hold references to their sources; drop the ones nobody will read.
        gst_bus_set_flushing(bus, 1)
        mn_object_unref(bus)
        mn_object_unref(playbin)
        mn_object_unref(sink.element)
        if let volume { mn_object_unref(volume) }
        sink.wavWriter?.close()
        continuation.finish()
    }

    /// playbin's default flags without video, subtitles and visualisation (audio only, even for files
    /// that carry more) and without soft volume (we bring our own).
    private static func flags(of playbin: UnsafeMutablePointer<GstElement>) -> gint {
        let video: gint = 1 << 0, text: gint = 1 << 2, visualisation: gint = 1 << 3, softVolume: gint = 1 << 4
        return mn_object_get_int(playbin, "flags") & ~(video | text | visualisation | softVolume)
    }
}
