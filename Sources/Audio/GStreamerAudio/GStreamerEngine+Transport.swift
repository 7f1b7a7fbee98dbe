import Foundation
import CGStreamer
import Playback

// MARK: - Loading and transport

extension GStreamerEngine {
    /// Tears the previous item down, then prerolls `uri` paused. Item failures (missing file, corrupt
    /// data, dead URL) arrive as `.error` facts; this throws only for input that is not a path or URI.
    ///
    /// With a start position or a non-1.0 rate, waits (up to 10 s) for the preroll and seeks before
    /// returning, so the first audio played is already at the right place and speed.
    public func load(uri: String, token: PlaybackToken, startAt seconds: Double?, next: NextItem?)
        async throws(AudioError)
    {
        let target = try GStreamer.uri(from: uri)
        let named = next.flatMap { next in (try? GStreamer.uri(from: next.uri)).map { NextItem(uri: $0, token: next.token) } }
        try checkAlive()
        watchHeldStream()
        let playbin = pipeline.playbin
        takeDownPlaybin()
        // No streaming thread runs now, so nothing of the old load can post after this marker.
        pipeline.shared.state.withLock { state in
            state.next = named.map { ($0.uri, $0.token) }
            state.switches = []
            state.load = token
            state.outputError = nil
        }
        pipeline.post(.loaded(token))
        pipeline.shared.stage.loaded(token)
        pipeline.shared.soundServer?.naming.loaded(token)
        loaded = token
        loadedURI = target
        loadStart = seconds.map { max(0, $0) }
        successor = named
        pendingAudioStream = nil
        mn_object_set_string(playbin, "uri", target)
        if var loss = soundServerLoss {
            // Held for the server's return, which opens it from its start.
            loss.position = seconds.map { max(0, $0) } ?? 0
            soundServerLoss = loss
            throw AudioError(.device, loss.reason)
        }
        guard order(GST_STATE_PAUSED) != GST_STATE_CHANGE_FAILURE else {
            // A sound server that does not answer is no fault of the item.
            try checkSoundServer(heldAt: seconds.map { max(0, $0) } ?? 0)
            // A missing file fails here and now; saying so lets the caller skip it in the same step
            // instead of racing the bus message that follows.
            throw AudioError(.item, "cannot open \(uri)")
        }
        let start = seconds.map { max(0, $0) }
        guard start != nil || rate != 1.0 else { return }
        guard waitForSteadyState(seconds: 10) else { return }
        _ = flushingSeek(to: start ?? 0, rate: rate, waitSeconds: 10)
    }

    public func preloadNext(uri: String?, token: PlaybackToken?) async {
        let next: (uri: String, token: PlaybackToken)?
        if let uri, let token, let target = try? GStreamer.uri(from: uri) {
            next = (target, token)
        } else {
            next = nil
        }
        pipeline.shared.state.withLock { $0.next = next }
        successor = next.map { NextItem(uri: $0.uri, token: $0.token) }
    }

    /// Throws `.device` once after the output failed under this load, and reopens the output (NULL
    /// closes the sink, PAUSED prerolls it again at the same place), so the next play tries it afresh.
    public func play() async throws(AudioError) {
        try checkLoaded()
        if let loss = soundServerLoss { throw AudioError(.device, loss.reason) }
        if let lost = pipeline.shared.state.withLock({ $0.outputError }) {
            reopenOutput()
            pipeline.shared.state.withLock { $0.outputError = nil }
            throw AudioError(.device, lost)
        }
        if order(GST_STATE_PLAYING) == GST_STATE_CHANGE_FAILURE {
            if let lost = pipeline.shared.state.withLock({ $0.outputError }) { throw AudioError(.device, lost) }
            try checkSoundServer(heldAt: nil)
            // The item failed while prerolling (its error may still be on the bus): it cannot play.
            throw AudioError(.item, "the item cannot be played")
        }
        if pendingAudioStream != nil { applyPendingAudioStream() }
    }

    public func pause() async throws(AudioError) {
        try checkLoaded()
        guard soundServerLoss == nil else { return }  // nothing plays; the item is held where it was
        if order(GST_STATE_PAUSED) == GST_STATE_CHANGE_FAILURE {
            throw AudioError(.engine, "the pipeline refused to pause")
        }
        if let played = playOrderedAt, ContinuousClock.now - played < Self.pauseRaceWindow { holdPauseAfterPlay() }
    }

    /// How soon after a play a pause can lose to it.
    static let pauseRaceWindow = Duration.milliseconds(300)

    /// A pause that comes while a play is completing can lose to it inside the sink: on a loaded machine every
    /// element then says PAUSED and the position stands still, yet buffers go on being rendered and heard (a
    /// phone call right after play, with the music going on under it). A flushing seek to where the item
    /// stands makes the sink preroll again, which ends that; once more a moment later, for a play that
    /// completes after the first.
    private func holdPauseAfterPlay() {
        prerollAgainHere()
        let orders = ordersGiven, token = loaded
        Task {
            try? await Task.sleep(for: .milliseconds(150))
            guard ordersGiven == orders, loaded == token, !pipeline.isReleased else { return }
            prerollAgainHere()
        }
    }

    private func prerollAgainHere() {
        // With the successor already opened a flushing seek lands in it (see `seek`); a play and a pause within
        // the same moment of an item's last second are left as they are.
        guard !isSwitchPending else { return }
        var position: gint64 = -1
        guard gst_element_query_position(pipeline.playbin, GST_FORMAT_TIME, &position) != 0, position >= 0 else { return }
        if gst_element_seek(
            pipeline.playbin, rate, GST_FORMAT_TIME, mn_seek_flags_flush_accurate(),
            GST_SEEK_TYPE_SET, position, GST_SEEK_TYPE_NONE, -1) != 0 {
            seekIsSettling = true
        }
    }

    /// One hop to the engine's thread instead of two: the pause and the reading that freezes the position.
    public func pauseAndSample() async throws(AudioError) -> PositionSample? {
        try await pause()
        return await positionSample()
    }

    /// Releases the item: NULL closes files, sockets and decoders.
    public func stop() async {
        guard !pipeline.isReleased, let token = loaded else { return }
        takeDownPlaybin()
        pipeline.shared.state.withLock { state in
            state.next = nil
            state.switches = []
            state.load = nil
        }
        pipeline.post(.stopped(token))
        loaded = nil
        loadedURI = nil
        successor = nil
        pendingAudioStream = nil
    }

    /// Returns once playbin has flushed and moved to the new place, without waiting for the preroll there
    /// (as `play` does not wait for PLAYING): the audio follows within milliseconds. Whatever reads the
    /// position next waits for that preroll first, so it reports the new place, not a stale one.
    ///
    /// Once playbin has read the whole current item and opened the preloaded next one (the last second or
    /// two still in its queues, or right after preroll for a short file), a flushing seek would land in the
    /// next item or be refused: playbin has already switched upstream. The item is then opened again at the
    /// place instead, with the same successor, as it is when playbin refuses a seek twice.
    ///
    /// playbin can open the successor between the check and the seek (its streaming thread reaches the end
    /// of the item then; on a loaded machine that window is wide), and the seek may then have landed in the
    /// successor. So a switch queued while the seek was made is treated as one queued before it.
    public func seek(to seconds: Double) async throws(AudioError) {
        try checkLoaded()
        if soundServerLoss != nil {
            soundServerLoss?.position = max(0, seconds)
            return
        }
        for attempt in 1...2 {
            // Refused mid-change (playbin between states, or swapping items): once it has settled it may accept.
            if attempt == 2 { _ = waitForSteadyState(seconds: 5) }
            let queuedBefore = switchesQueued
            guard !isSwitchPending else { break }
            if flushingSeek(to: seconds, rate: rate, waitSeconds: 5, settle: false) {
                if switchesQueued == queuedBefore {
                    seekIsSettling = true
                    return
                }
                logger.debug("audio: playbin opened the successor while seeking \(loaded.map { "\($0)" } ?? "") to \(seconds) s")
                break
            }
        }
        guard reopenCurrent(at: seconds) else { throw AudioError(.engine, "the item cannot seek to \(seconds) s") }
    }

    /// A flushing seek from the current position with the new rate; scaletempo keeps the pitch.
    /// (GStreamer's instant-rate-change flag would avoid the flush but hangs on 1.22.)
    public func setRate(_ newRate: Double) async throws(AudioError) {
        guard newRate > 0, newRate <= 8 else { throw AudioError(.engine, "unsupported rate \(newRate)") }
        try checkAlive()
        let previous = rate
        rate = newRate
        guard loaded != nil, newRate != previous, soundServerLoss == nil else { return }
        guard applyRate(newRate, waitSeconds: 5) else {
            rate = previous
            throw AudioError(.engine, "the item cannot change rate")
        }
    }

    public func setOutputGain(_ gain: OutputGain) async {
        guard !pipeline.isReleased else { return }
        pipeline.shared.stage.set(gain)
    }

    public func setItemGain(_ gain: ItemGain, for token: PlaybackToken) async {
        pipeline.shared.stage.remember(gain, for: token)
    }

    public func position() async -> Double? {
        await positionSample()?.seconds
    }

    /// Stamped on the engine's thread right after the query, before the answer hops back to the caller.
    public func positionSample() async -> PositionSample? {
        guard loaded != nil, !pipeline.isReleased else { return nil }
        if let loss = soundServerLoss { return PositionSample(seconds: loss.position, sampledAt: Date().timeIntervalSince1970) }
        settlePendingSeek()
        var nanoseconds: gint64 = -1
        guard gst_element_query_position(pipeline.playbin, GST_FORMAT_TIME, &nanoseconds) != 0,
              nanoseconds >= 0
        else { return nil }
        return PositionSample(seconds: GStreamer.seconds(nanoseconds), sampledAt: Date().timeIntervalSince1970)
    }

    // MARK: - Helpers (engine executor only)

    var switchesQueued: UInt64 { pipeline.shared.state.withLock { $0.switchesQueued } }

    /// playbin has opened the next item of this load's chain and the current one is playing its tail.
    var isSwitchPending: Bool {
        pipeline.shared.state.withLock { state in state.switches.contains { $0.load == state.load } }
    }

    /// Opens the current item again at `seconds`, under the same token and with the same successor, and
    /// takes it back to the state it was in (or was going to). The bus reader sees a new load of the same
    /// token: the core sees the same item go on from the new place.
    private func reopenCurrent(at seconds: Double, rate: Double? = nil) -> Bool {
        guard let token = loaded, let uri = loadedURI else { return false }
        var state = GST_STATE_VOID_PENDING, pending = GST_STATE_VOID_PENDING
        gst_element_get_state(pipeline.playbin, &state, &pending, 0)
        let target = pending == GST_STATE_VOID_PENDING ? state : pending
        logger.debug("audio: opening \(token) again at \(seconds) s, rate \(rate ?? self.rate) (playbin was switching to its successor)")
        let rate = rate ?? self.rate
        pendingAudioStream = chosenAudioStream()
        takeDownPlaybin()
        pipeline.shared.state.withLock { state in
            state.next = successor.map { ($0.uri, $0.token) }
            state.switches = []
            state.load = token
        }
        pipeline.post(.loaded(token))
        mn_object_set_string(pipeline.playbin, "uri", uri)
        guard order(GST_STATE_PAUSED) != GST_STATE_CHANGE_FAILURE,
              waitForSteadyState(seconds: 5),
              flushingSeek(to: seconds, rate: rate, waitSeconds: 5)
        else { return false }
        if target == GST_STATE_PLAYING {
            order(GST_STATE_PLAYING)
            applyPendingAudioStream()
        }
        return true
    }


    /// Takes the pipeline down to NULL and back to PAUSED at the same position, rate and audio stream
    /// (the stream is switched by the next `play`).
    private func reopenOutput() {
        settlePendingSeek()
        var nanoseconds: gint64 = 0
        _ = gst_element_query_position(pipeline.playbin, GST_FORMAT_TIME, &nanoseconds)
        pendingAudioStream = chosenAudioStream()
        takeDownPlaybin()
        guard order(GST_STATE_PAUSED) != GST_STATE_CHANGE_FAILURE,
              waitForSteadyState(seconds: 5)
        else { return }
        _ = flushingSeek(to: GStreamer.seconds(max(0, nanoseconds)), rate: rate, waitSeconds: 5)
    }

    /// A rate change is a flushing seek to where the item is, so it has `seek`'s race in an item's tail:
    /// once playbin has opened the successor (or opens it between the check and the seek), the seek lands
    /// in the successor. The item is then opened again at its place, at the new rate, with its successor.
    func applyRate(_ newRate: Double, waitSeconds: Double) -> Bool {
        settlePendingSeek()
        var nanoseconds: gint64 = 0, duration: gint64 = -1
        _ = gst_element_query_position(pipeline.playbin, GST_FORMAT_TIME, &nanoseconds)
        _ = gst_element_query_duration(pipeline.playbin, GST_FORMAT_TIME, &duration)
        // Right after a gapless switch the position can still be the previous item's (its tail is in
        // the queues); past the new item's end it would seek straight to its end of stream.
        if duration > 0, nanoseconds >= duration { nanoseconds = 0 }
        let seconds = GStreamer.seconds(max(0, nanoseconds))
        let queuedBefore = switchesQueued
        if !isSwitchPending {
            guard flushingSeek(to: seconds, rate: newRate, waitSeconds: waitSeconds) else { return false }
            if switchesQueued == queuedBefore { return true }
            logger.debug("audio: playbin opened the successor while changing the rate of \(loaded.map { "\($0)" } ?? "")")
        }
        return reopenCurrent(at: seconds, rate: newRate)
    }

    func flushingSeek(to seconds: Double, rate: Double, waitSeconds: Double, settle: Bool = true) -> Bool {
        // A load returns before its preroll; playbin refuses a seek until then (a rate or position
        // command right after a load would fail), so let the preroll finish first. A seek's preroll
        // needs no such wait: the new flushing seek replaces it (over a slow server the wait would hold
        // this seek for seconds).
        if !seekIsSettling { _ = waitForSteadyState(seconds: waitSeconds) }
        let accepted = gst_element_seek(
            pipeline.playbin, rate, GST_FORMAT_TIME, mn_seek_flags_flush_accurate(),
            GST_SEEK_TYPE_SET, GStreamer.clockTime(seconds: seconds), GST_SEEK_TYPE_NONE, -1) != 0
        if accepted { stateChangeStalled = false }  // the flush starts a new preroll, worth one real wait
        if accepted, settle { _ = waitForSteadyState(seconds: waitSeconds) }
        return accepted
    }

    /// Right after a flushing seek playbin answers no position query until it has prerolled at the new
    /// place, and a query then would read nothing (or the place before the seek); so wait for it once.
    func settlePendingSeek() {
        if seekIsSettling { _ = waitForSteadyState(seconds: 5) }
    }

    /// Takes playbin to NULL, which also ends any seek still prerolling: what prerolls next is another
    /// load (a slow server's item can take seconds), and waiting for it is not the seek's business.
    func takeDownPlaybin() {
        pipeline.shared.state.withLock { $0.ordersPlaying = false }
        pipeline.stopPlaybin()
        seekIsSettling = false
        stateChangeStalled = false
    }

    /// Blocks the engine's thread until a pending state change completes; false on failure or timeout.
    /// Once a wait has timed out, later ones do not block until the change completes (`stateChangeStalled`).
    @discardableResult
    func waitForSteadyState(seconds: Double) -> Bool {
        let result = gst_element_get_state(
            pipeline.playbin, nil, nil, GstClockTime(GStreamer.clockTime(seconds: stateChangeStalled ? 0 : seconds)))
        seekIsSettling = false
        if result == GST_STATE_CHANGE_ASYNC, !stateChangeStalled {
            logger.warning("playbin did not complete a state change within \(seconds) s; not waiting for it again")
        }
        stateChangeStalled = result == GST_STATE_CHANGE_ASYNC
        return result == GST_STATE_CHANGE_SUCCESS || result == GST_STATE_CHANGE_NO_PREROLL
    }

    /// Tells playbin to go to `target` (PAUSED or PLAYING), noting the order first for the bus thread.
    @discardableResult
    func order(_ target: GstState) -> GstStateChangeReturn {
        pipeline.shared.state.withLock { $0.ordersPlaying = target == GST_STATE_PLAYING }
        ordersGiven &+= 1
        if target == GST_STATE_PLAYING { playOrderedAt = .now }
        return gst_element_set_state(pipeline.playbin, target)
    }

    /// playbin reached PLAYING after the engine told it PAUSED (see `EngineShared.State.ordersPlaying`).
    func pauseAgain(_ token: PlaybackToken) {
        guard loaded == token, !pipeline.isReleased, !pipeline.shared.state.withLock({ $0.ordersPlaying }) else { return }
        logger.notice("audio: playbin went on to play \(token) after it was paused; pausing it again")
        gst_element_set_state(pipeline.playbin, GST_STATE_PAUSED)
        holdPauseAfterPlay()
    }

    func checkAlive() throws(AudioError) {
        if pipeline.isReleased { throw AudioError(.engine, "the audio engine was shut down") }
    }

    func checkLoaded() throws(AudioError) {
        try checkAlive()
        if loaded == nil { throw AudioError(.engine, "nothing is loaded") }
    }
}

