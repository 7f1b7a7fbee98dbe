import Playback

/// The transport's and the playhead's commands as one call each, for tests: the node's command table reaches
/// the parts itself (`perform { $0.transport.play() }`), and so do these, each in a turn of its own.
extension PlaybackController {
    @discardableResult
    public func play() async -> PlaybackOutcome { await perform { await $0.transport.play() } }

    @discardableResult
    public func pause() async -> PlaybackOutcome { await perform { await $0.transport.pause() } }

    @discardableResult
    public func togglePlayPause() async -> PlaybackOutcome { await perform { await $0.transport.togglePlayPause() } }

    @discardableResult
    public func stop() async -> PlaybackOutcome { await perform { await $0.transport.stop() } }

    @discardableResult
    public func nextTrack() async -> PlaybackOutcome { await perform { await $0.transport.nextTrack() } }

    @discardableResult
    public func previousTrack() async -> PlaybackOutcome { await perform { await $0.transport.previousTrack() } }

    @discardableResult
    public func seek(to seconds: Double, identifier: String? = nil) async -> PlaybackOutcome {
        await perform { await $0.playhead.seek(to: seconds, identifier: identifier) }
    }

    @discardableResult
    public func skip(by seconds: Double) async -> PlaybackOutcome { await perform { await $0.playhead.skip(by: seconds) } }

    @discardableResult
    public func endSeeking() async -> PlaybackOutcome { await perform { await $0.playhead.endSeeking() } }

    @discardableResult
    public func setRate(_ rate: Double) async -> PlaybackOutcome { await perform { await $0.playhead.setRate(rate) } }

    @discardableResult
    public func beginInterruption(duck: Bool = false) async -> PlaybackOutcome {
        await perform { await $0.transport.beginInterruption(duck: duck) }
    }

    @discardableResult
    public func endInterruption(shouldResume: Bool) async -> PlaybackOutcome {
        await perform { await $0.transport.endInterruption(shouldResume: shouldResume) }
    }
}
