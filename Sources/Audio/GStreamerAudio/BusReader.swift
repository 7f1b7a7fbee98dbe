import CGStreamer
import Dispatch
import Foundation
import Logging
import Playback

/// Turns pipeline bus messages into `AudioFact`s, on a thread of its own, in the order GStreamer posted them.
///
/// Token stamping: the reader's idea of the current token changes only at points that are ordered with
/// the messages themselves: a marker the engine posted after the old load was torn down, or the
/// STREAM_START of a gapless switch. So a late message of an earlier load is always stamped with the
/// earlier token.
///
/// Threading: after `start`, every stored `var` is touched only by the bus thread. `playbin`, `sink` and
/// `bus` are borrowed: the owner keeps them alive until `join` has returned.
final class BusReader: @unchecked Sendable {
    private let bus: UnsafeMutablePointer<GstBus>
    private let playbin: UnsafeMutablePointer<GstElement>
    private let sink: UnsafeMutablePointer<GstElement>
    private let shared: EngineShared
    private let continuation: AsyncStream<AudioFact>.Continuation
    private let logger: Logger
    private let finished = DispatchSemaphore(value: 0)
    private var onGaplessSwitch: @Sendable (PlaybackToken) -> Void = { _ in }
    private var onSwitchFailed: @Sendable (PlaybackToken) -> Void = { _ in }
    private var onSoundServerLost: @Sendable (String) -> Void = { _ in }
    private var onPlaying: @Sendable (PlaybackToken) -> Void = { _ in }
    private var onUnorderedPlaying: @Sendable (PlaybackToken) -> Void = { _ in }

    // Bus-thread state.
    private var current: PlaybackToken?
    private var load: PlaybackToken?
    private var sawFirstStreamStart = false
    private var lastState: EngineState?
    private var lastDuration: Double??
    /// The next item of a gapless switch that failed to open; its follow-up errors belong to it too.
    private var failedNext: PlaybackToken?

    init(bus: UnsafeMutablePointer<GstBus>, playbin: UnsafeMutablePointer<GstElement>,
         sink: UnsafeMutablePointer<GstElement>, shared: EngineShared,
         continuation: AsyncStream<AudioFact>.Continuation, logger: Logger) {
        self.bus = bus
        self.playbin = playbin
        self.sink = sink
        self.shared = shared
        self.continuation = continuation
        self.logger = logger
    }

    /// Starts the thread. `onGaplessSwitch` runs on the bus thread after a switch's streamStarted fact;
    /// `onSwitchFailed` after the item a switch went to failed, with the token still playing its tail;
    /// `onSoundServerLost` when a sound server's sink failed (once, until the engine has it back);
    /// `onPlaying` instead of the playing fact, when the output is a sound server; `onUnorderedPlaying` instead
    /// of it when playbin reached PLAYING though the engine's last order was PAUSED.
    func start(onGaplessSwitch: @escaping @Sendable (PlaybackToken) -> Void,
               onSwitchFailed: @escaping @Sendable (PlaybackToken) -> Void,
               onSoundServerLost: @escaping @Sendable (String) -> Void,
               onPlaying: @escaping @Sendable (PlaybackToken) -> Void,
               onUnorderedPlaying: @escaping @Sendable (PlaybackToken) -> Void) {
        self.onGaplessSwitch = onGaplessSwitch
        self.onSwitchFailed = onSwitchFailed
        self.onSoundServerLost = onSoundServerLost
        self.onPlaying = onPlaying
        self.onUnorderedPlaying = onUnorderedPlaying
        let thread = Thread { [self] in run() }
        thread.name = "medianode.audio.bus"
        thread.start()
    }

    /// Waits until the thread has read the `.quit` marker. Call only after posting it.
    func join() { finished.wait() }

    private func run() {
        var running = true
        while running {
            // A bounded wait, so a bus set flushing by mistake cannot wedge the thread in a tight loop.
            guard let message = gst_bus_timed_pop_filtered(bus, 200 * 1_000_000, mn_engine_message_mask())
            else { continue }
            running = handle(message)
            mn_message_unref(message)
        }
        finished.signal()
    }

    /// Returns false once the quit marker arrived.
    private func handle(_ message: UnsafeMutablePointer<GstMessage>) -> Bool {
        switch mn_message_type(message) {
        case GST_MESSAGE_APPLICATION: return handleMarker(message)
        case GST_MESSAGE_STATE_CHANGED: handleStateChanged(message)
        case GST_MESSAGE_STREAM_START: handleStreamStart()
        case GST_MESSAGE_EOS: emit { .endOfStream($0) }
        case GST_MESSAGE_ERROR: handleError(message)
        case GST_MESSAGE_WARNING: logWarning(message)
        case GST_MESSAGE_TAG: handleTags(message)
        case GST_MESSAGE_DURATION_CHANGED: reportDuration(unknownMeansLive: false)
        case GST_MESSAGE_ASYNC_DONE: reportDuration(unknownMeansLive: true)
        case GST_MESSAGE_REQUEST_STATE: handleRequestState(message)
        case GST_MESSAGE_BUFFERING:
            var percent: gint = 0
            gst_message_parse_buffering(message, &percent)
            emit { .buffering($0, percent: Int(percent)) }
        default: break
        }
        return true
    }

    private func emit(_ fact: (PlaybackToken) -> AudioFact) {
        guard let current else { return }  // nothing loaded: a leftover of a stopped item
        continuation.yield(fact(current))
    }

    // MARK: - Markers and stream starts

    private func handleMarker(_ message: UnsafeMutablePointer<GstMessage>) -> Bool {
        guard let structure = gst_message_get_structure(message),
              gst_structure_has_name(structure, EngineShared.markerName) != 0
        else { return true }
        let marker = shared.state.withLock { $0.markers.isEmpty ? nil : $0.markers.removeFirst() }
        switch marker {
        case .loaded(let token):
            current = token
            load = token
            sawFirstStreamStart = false
            failedNext = nil
            lastState = .loading
            lastDuration = nil
            continuation.yield(.stateChanged(.loading, token))
        case .stopped(let token):
            current = nil
            load = nil
            failedNext = nil
            lastState = .idle
            continuation.yield(.stateChanged(.idle, token))
        case .quit:
            return false
        case nil:
            logger.error("audio bus: a marker message without a payload")
        }
        return true
    }

    private func handleStreamStart() {
        guard let load else { return }
        if !sawFirstStreamStart {
            sawFirstStreamStart = true
            emit { .streamStarted($0) }
            reportDuration(unknownMeansLive: false)
            return
        }
        let next: PlaybackToken? = shared.state.withLock { state in
            state.switches.removeAll { $0.load != load }
            return state.switches.isEmpty ? nil : state.switches.removeFirst().next
        }
        guard let next else { return }  // a stream restarted without a switch; still the same item
        current = next
        lastDuration = nil
        continuation.yield(.streamStarted(next))
        reportDuration(unknownMeansLive: false)
        onGaplessSwitch(next)
    }

    // MARK: - Other messages

    private func handleStateChanged(_ message: UnsafeMutablePointer<GstMessage>) {
        guard mn_message_src(message) == gcast(playbin, to: GstObject.self) else { return }
        var old = GST_STATE_VOID_PENDING, new = GST_STATE_VOID_PENDING, pending = GST_STATE_VOID_PENDING
        gst_message_parse_state_changed(message, &old, &new, &pending)
        guard pending == GST_STATE_VOID_PENDING else {
            // On the way somewhere (a flushing seek or rate change loses the playing state until the
            // preroll at the new place): the steady state reached next is news, even if it is the old one.
            lastState = nil
            return
        }
        let state: EngineState
        switch new {
        case GST_STATE_PAUSED: state = .paused
        case GST_STATE_PLAYING: state = .playing
        default: return  // READY and NULL are reported by the engine's own markers
        }
        guard state != lastState, let current else { return }
        // Not news: the core holds the item, and the pause that follows brings playbin back to what it was told.
        if state == .playing, !shared.state.withLock({ $0.ordersPlaying }) {
            onUnorderedPlaying(current)
            return
        }
        lastState = state
        // A sound server plays what it was given some time after PLAYING (its latency): the engine reports
        // that once the audio is heard, so positions are anchored to what the listener hears.
        if state == .playing, shared.soundServer != nil {
            onPlaying(current)
            return
        }
        emit { .stateChanged(state, $0) }
    }

    private func handleError(_ message: UnsafeMutablePointer<GstMessage>) {
        var error: UnsafeMutablePointer<GError>?
        var debug: UnsafeMutablePointer<gchar>?
        gst_message_parse_error(message, &error, &debug)
        let text = GStreamer.consume(error)
        let details = debug.map { String(cString: $0) } ?? ""
        g_free(debug)
        let fromOutput = isFromOutput(message)
        if shared.soundServer != nil, handleSoundServerError(text, details: details) { return }
        logger.error("audio error: \(text)", metadata: ["debug": "\(details)"])
        guard let current else { return }
        // Once the output failed, the errors upstream elements post next ("Internal data stream error")
        // are its consequence, not a fault of the item: reporting them would skip a good item.
        let outputAlreadyFailed = shared.state.withLock { state in
            defer { if fromOutput { state.outputError = text } }
            return state.outputError != nil
        }
        if !fromOutput, outputAlreadyFailed { return }
        if fromOutput {
            continuation.yield(.error(current, AudioError(.device, text)))
            return
        }
        if let failedNext {
            continuation.yield(.error(failedNext, AudioError(.item, text)))
            return
        }
        // An error from the item playbin switched to (its stream has not started) belongs to that item.
        // Its STREAM_START will never come, and neither will the current item's end of stream: playbin
        // holds that back for the switch. The engine watches the current item's tail instead.
        let pendingNext: PlaybackToken? = shared.state.withLock { state in
            guard let index = state.switches.lastIndex(where: { $0.load == load }) else { return nil }
            return state.switches.remove(at: index).next
        }
        if let pendingNext {
            failedNext = pendingNext
            continuation.yield(.error(pendingNext, AudioError(.item, text)))
            onSwitchFailed(current)
            return
        }
        continuation.yield(.error(current, AudioError(.item, text)))
    }

    private func isFromOutput(_ message: UnsafeMutablePointer<GstMessage>) -> Bool {
        let sinkObject = gcast(sink, to: GstObject.self)
        return mn_message_src(message).map { $0 == sinkObject || gst_object_has_as_ancestor($0, sinkObject) != 0 } ?? false
    }

    /// A sound server's sink fails when the server goes away: the engine is told once (it logs it, holds the
    /// item and tries the server again), and every error until it has the server back, the sink's own (it
    /// posts one for each call it cannot make) and the upstream ones that follow, is its consequence.
    /// Returns whether the error was handled so.
    ///
    /// Whether the server is what failed is asked of the server (a millisecond or two, on this thread): an
    /// upstream error can come first (playbin finds no sink to link when the server has no such sink), and a
    /// sink can fail on a server that answers (then it is an output error like any other).
    private func handleSoundServerError(_ text: String, details: String) -> Bool {
        let alreadyLost = shared.state.withLock { $0.soundServerLost }
        if alreadyLost {
            logger.debug("audio error while the sound server is away: \(text)", metadata: ["debug": "\(details)"])
            return true
        }
        guard let reason = SoundServer.unreachable(device: shared.soundServer?.device) else { return false }
        let first = shared.state.withLock { state in
            defer { state.soundServerLost = true }
            return !state.soundServerLost
        }
        if first { onSoundServerLost(reason) }
        return true
    }

    /// A sound server's cork request (paused) or uncork request (playing), as its sink relays it.
    private func handleRequestState(_ message: UnsafeMutablePointer<GstMessage>) {
        guard isFromOutput(message) else { return }
        var state = GST_STATE_VOID_PENDING
        gst_message_parse_request_state(message, &state)
        guard state == GST_STATE_PAUSED || state == GST_STATE_PLAYING else { return }
        continuation.yield(.focusChanged(hasFocus: state == GST_STATE_PLAYING))
    }

    private func logWarning(_ message: UnsafeMutablePointer<GstMessage>) {
        var error: UnsafeMutablePointer<GError>?
        var debug: UnsafeMutablePointer<gchar>?
        gst_message_parse_warning(message, &error, &debug)
        g_free(debug)
        let text = GStreamer.consume(error)
        // Expected: the engine turned playsink's soft volume off to use its own volume element.
        guard text != "No volume control found" else { return }
        logger.warning("audio warning: \(text)")
    }

    private func handleTags(_ message: UnsafeMutablePointer<GstMessage>) {
        // Decoders post tags ahead of playback (the next gapless item's while the current one still
        // plays); the sink posts them when the stream reaches the output, in order with STREAM_START.
        guard let source = mn_message_src(message), mn_object_is_sink(source) != 0 else { return }
        var list: UnsafeMutablePointer<GstTagList>?
        gst_message_parse_tag(message, &list)
        guard let list else { return }
        defer { mn_tag_list_unref(list) }
        // The engine's own naming of a sound server's stream (see `StreamNaming`), not the stream's tags.
        guard mn_tags_name_stream(list) == 0 else { return }
        let tags = StreamTags(list)
        if !tags.isEmpty { emit { .tags($0, tags) } }
    }

    private func reportDuration(unknownMeansLive: Bool) {
        var nanoseconds: gint64 = -1
        let known = gst_element_query_duration(playbin, GST_FORMAT_TIME, &nanoseconds) != 0 && nanoseconds >= 0
        guard known || unknownMeansLive else { return }
        let duration: Double? = known ? GStreamer.seconds(nanoseconds) : nil
        guard lastDuration == nil || lastDuration! != duration else { return }
        lastDuration = .some(duration)
        emit { .duration($0, duration) }
    }
}
