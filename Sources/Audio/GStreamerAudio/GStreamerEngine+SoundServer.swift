import CGStreamer
import Foundation
import Playback

/// The sound server gone: what the engine holds until it answers again.
struct SoundServerLoss: Sendable {
    /// Why, naming the server (`play` answers with it).
    var reason: String
    /// Where the item was heard when the server went (the core says so by a seek once it knows), or where a
    /// seek or load since asked it to start.
    var position: Double
}

// MARK: - A sound server that goes away and comes back

extension GStreamerEngine {
    /// How often the engine asks a lost sound server whether it answers again.
    static let soundServerRetryInterval = Duration.milliseconds(500)

    /// The sound server went away under the engine (its sink failed) or did not answer a load or a play.
    /// Holds the item where it was heard, takes the pipeline down (so the sink stops posting errors), reports
    /// the loss once and tries the server again until it answers; then opens the item again where it was.
    /// Meanwhile `play` answers `.device` with the reason, and pause, seek and loads only move what is held.
    func soundServerLost(_ reason: String, heldAt position: Double? = nil) {
        guard soundServerLoss == nil, !pipeline.isReleased, let server = pipeline.shared.soundServer else { return }
        var heard: Double? = position
        if heard == nil, loaded != nil {
            var nanoseconds: gint64 = -1
            if gst_element_query_position(pipeline.playbin, GST_FORMAT_TIME, &nanoseconds) != 0, nanoseconds >= 0 {
                heard = GStreamer.seconds(nanoseconds)
            }
        }
        if loaded != nil, pendingAudioStream == nil { pendingAudioStream = chosenAudioStream() }
        // Lost before its preroll, the item is held where its load asked it to start.
        soundServerLoss = SoundServerLoss(reason: reason, position: heard ?? loadStart ?? 0)
        pipeline.shared.state.withLock { $0.soundServerLost = true }
        takeDownPlaybin()
        logger.warning("audio: \(reason); the music is held, and the server asked again every \(Self.soundServerRetryInterval)")
        pipeline.report(.outputLost(reason))
        soundServerRetry = Task { [weak self, device = server.device] in
            while let self, await self.soundServerLoss != nil {
                try? await Task.sleep(for: Self.soundServerRetryInterval)
                guard !Task.isCancelled else { return }
                if await Self.serverUnreachable(device: device) == nil, await self.soundServerReturned() { return }
            }
        }
    }

    /// How often the engine asks whether the connection of a sink that writes nothing still stands.
    static let heldStreamCheckInterval = Duration.seconds(1)

    /// Watches, for as long as the engine lives, over an item held on a sound server (paused, corked for a
    /// call, or loaded and not yet played): its sink writes nothing, so it would not notice the server go
    /// away or restart, and music held for a call would wait for an uncork that never comes. Playing music
    /// needs no watch: the sink's next write fails.
    func watchHeldStream() {
        guard heldStreamWatch == nil, pipeline.shared.soundServer != nil else { return }
        heldStreamWatch = Task { [weak self] in
            while !Task.isCancelled {
                try? await Task.sleep(for: Self.heldStreamCheckInterval)
                guard let self, await self.checkHeldStream() else { return }
            }
        }
    }

    /// Asks whether the held stream's connection still stands; false once the engine is released.
    ///
    /// The probe's pulsesink shares the music's connection (pulsesink keeps one per client name and server),
    /// so it fails on a connection that is gone even when a restarted server answers; over one that stands it
    /// opens no connection of its own. (The music's own sink is not asked: its `device-name`, read over a
    /// connection that is gone, frees its cached description without forgetting it, and a second read or
    /// its finalization frees it again.)
    private func checkHeldStream() -> Bool {
        guard !pipeline.isReleased else { return false }
        // Steadily PAUSED: the sink holds its connection and stream then (not in READY or NULL, and a change
        // of state is the engine's own business).
        guard let server = pipeline.shared.soundServer, soundServerLoss == nil, loaded != nil, standsIn(GST_STATE_PAUSED)
        else { return true }
        if let reason = SoundServer.unreachable(device: server.device) { soundServerLost(reason) }
        return true
    }

    /// After a failed state change of a sound server's output: whether the server is what failed, and if so,
    /// holds the item and throws the reason.
    func checkSoundServer(heldAt position: Double?) throws(AudioError) {
        guard let server = pipeline.shared.soundServer else { return }
        if let loss = soundServerLoss { throw AudioError(.device, loss.reason) }
        guard let reason = SoundServer.unreachable(device: server.device) else { return }
        soundServerLost(reason, heldAt: position)
        throw AudioError(.device, reason)
    }

    /// Opens the held item again where it was, once the server answers; true when done (or nothing was
    /// held), false to try again later.
    private func soundServerReturned() -> Bool {
        guard let loss = soundServerLoss, !pipeline.isReleased else { return true }
        if let token = loaded, let uri = loadedURI {
            pipeline.shared.state.withLock { state in
                state.next = successor.map { ($0.uri, $0.token) }
                state.switches = []
                state.load = token
                state.outputError = nil
            }
            pipeline.post(.loaded(token))
            pipeline.shared.stage.loaded(token)
            pipeline.shared.soundServer?.naming.loaded(token)
            mn_object_set_string(pipeline.playbin, "uri", uri)
            let opened = order(GST_STATE_PAUSED) != GST_STATE_CHANGE_FAILURE
                && waitForSteadyState(seconds: 5)
            // A live stream takes no seek: it goes on live.
            if opened, loss.position > 0 || rate != 1 { _ = flushingSeek(to: loss.position, rate: rate, waitSeconds: 5) }
            guard opened else {
                logger.debug("audio: the sound server answered, but the item could not be opened on it yet")
                takeDownPlaybin()
                return false
            }
        }
        soundServerLoss = nil
        pipeline.shared.state.withLock { $0.soundServerLost = false }
        logger.notice("audio: the sound server at \(SoundServer.address) answers again")
        pipeline.report(.outputRestored)
        return true
    }

    /// Reports that `token` plays once its audio is heard: a sound server's clock (what pulsesink's position
    /// follows) stands still from PLAYING until the first sample reaches the listener, and the core anchors
    /// now playing's position to the moment of this fact. Gives up waiting after half a second (a stream the
    /// server holds), and stays silent when the pipeline left PLAYING or the load changed meanwhile.
    func reportPlayingOnceHeard(_ token: PlaybackToken) async {
        let clock = ContinuousClock()
        let deadline = clock.now + .milliseconds(500)
        let start = playingPosition()
        while clock.now < deadline {
            guard loaded == token, soundServerLoss == nil, let start else { return }
            guard let now = playingPosition() else { return }
            if now > start + 0.002 { break }
            try? await Task.sleep(for: .milliseconds(5))
        }
        guard loaded == token, soundServerLoss == nil, standsInPlaying() else { return }
        pipeline.report(.stateChanged(.playing, token))
    }

    /// Whether the pipeline is in PLAYING with no change pending; never waits.
    private func standsInPlaying() -> Bool {
        standsIn(GST_STATE_PLAYING)
    }

    /// Whether the pipeline is in `target` with no change pending; never waits.
    private func standsIn(_ target: GstState) -> Bool {
        var state = GST_STATE_VOID_PENDING, pending = GST_STATE_VOID_PENDING
        gst_element_get_state(pipeline.playbin, &state, &pending, 0)
        return state == target && pending == GST_STATE_VOID_PENDING
    }

    /// The position while the pipeline stands in PLAYING, else nil.
    private func playingPosition() -> Double? {
        guard !pipeline.isReleased, standsInPlaying() else { return nil }
        var nanoseconds: gint64 = -1
        guard gst_element_query_position(pipeline.playbin, GST_FORMAT_TIME, &nanoseconds) != 0, nanoseconds >= 0
        else { return nil }
        return GStreamer.seconds(nanoseconds)
    }

    /// Asks the server on a thread of its own: a server that hangs must not hold the engine's thread.
    private static func serverUnreachable(device: String?) async -> String? {
        await withCheckedContinuation { continuation in
            let thread = Thread { continuation.resume(returning: SoundServer.unreachable(device: device)) }
            thread.name = "medianode.audio.server-probe"
            thread.start()
        }
    }
}
