import MediaNodeTesting
import Playback
import Testing

/// Every operation's answer in every state that matters (S4, S5, S8, S9, S10).
@Suite("Playback controller outcomes")
struct PlaybackControllerOutcomeTests {
    /// The operations that need a current item, each by name.
    static let needsAnItem: [String] = [
        "play", "pause", "togglePlayPause", "nextTrack", "previousTrack", "seek", "skip",
        "beginSeeking", "setRate", "selectAudioStream",
    ]

    static func perform(_ name: String, on controller: PlaybackController) async -> PlaybackOutcome {
        switch name {
        case "play": await controller.play()
        case "pause": await controller.pause()
        case "togglePlayPause": await controller.togglePlayPause()
        case "nextTrack": await controller.nextTrack()
        case "previousTrack": await controller.previousTrack()
        case "seek": await controller.seek(to: 10)
        case "skip": await controller.skip(by: 15)
        case "beginSeeking": await controller.beginSeeking(forward: true)
        case "setRate": await controller.setRate(1.5)
        case "selectAudioStream": await controller.selectAudioStream(0)
        default: .failed(.invalid("unknown operation \(name)"))
        }
    }

    @Test("with nothing loaded, item operations answer nothingLoaded", arguments: needsAnItem)
    func nothingLoaded(_ name: String) async {
        let rig = PlaybackRig()
        #expect(await Self.perform(name, on: rig.controller) == .failed(.nothingLoaded))
        #expect(rig.engine.calls.isEmpty, "nothing reached the engine")
    }

    @Test("after stop, item operations answer nothingLoaded", arguments: needsAnItem)
    func afterStop(_ name: String) async {
        let rig = await PlaybackRig.loaded()
        await rig.controller.stop()
        #expect(await Self.perform(name, on: rig.controller) == .failed(.nothingLoaded))
    }

    @Test("stop, repeat and shuffle succeed with nothing loaded")
    func harmlessWhenEmpty() async {
        let rig = PlaybackRig()
        #expect(await rig.controller.stop() == .success)
        #expect(await rig.controller.setRepeatMode(.all) == .success)
        #expect(await rig.controller.setShuffleMode(.items) == .success)
        let queue = await rig.controller.snapshot.queue
        #expect(queue.repeatMode == .all)
        #expect(queue.shuffleMode == .items)
    }

    @Test("play while playing answers commandFailed (alreadyPlaying)")
    func playWhilePlaying() async {
        let rig = await PlaybackRig.loaded()
        #expect(await rig.controller.play() == .failed(.alreadyPlaying))
    }

    @Test("pause while playing pauses")
    func pauseWhilePlaying() async {
        let rig = await PlaybackRig.loaded()
        #expect(await rig.controller.pause() == .success)
        #expect(await rig.controller.snapshot.state == .paused)
        #expect(!rig.engine.isPlaying)
    }

    @Test("pause while paused answers commandFailed (alreadyPaused)")
    func pauseWhilePaused() async {
        let rig = await PlaybackRig.loaded(play: false)
        #expect(await rig.controller.pause() == .failed(.alreadyPaused))
    }

    @Test("play while paused plays")
    func playWhilePaused() async {
        let rig = await PlaybackRig.loaded(play: false)
        #expect(await rig.controller.play() == .success)
        #expect(await rig.controller.snapshot.state == .playing)
        #expect(rig.engine.isPlaying)
    }

    @Test("togglePlayPause pauses when playing and plays when paused (S9)")
    func toggle() async {
        let rig = await PlaybackRig.loaded()
        #expect(await rig.controller.togglePlayPause() == .success)
        #expect(await rig.controller.snapshot.state == .paused)
        #expect(await rig.controller.togglePlayPause() == .success)
        #expect(await rig.controller.snapshot.state == .playing)
    }

    @Test("stop releases the queue and now playing says stopped (S8)")
    func stopReleases() async {
        let rig = await PlaybackRig.loaded()
        #expect(await rig.controller.stop() == .success)
        let snapshot = await rig.controller.snapshot
        #expect(snapshot.state == .stopped)
        #expect(snapshot.item == nil)
        #expect(snapshot.queue.identifiers.isEmpty)
        #expect(rig.engine.calls.last == .stop)
        #expect(rig.engine.loadedURI == nil)
        #expect(await rig.controller.play() == .failed(.nothingLoaded))
        let events = await rig.events(atLeast: 2)
        #expect(events.last == .trackEnded(identifier: "track:1", reason: .stopped, position: 0))
    }

    @Test("pause keeps the queue, unlike stop (S8)")
    func pauseKeeps() async {
        let rig = await PlaybackRig.loaded()
        await rig.controller.pause()
        #expect(await rig.controller.snapshot.queue.count == 4)
        #expect(rig.engine.loadedURI == "file:///music/track1.ogg")
    }

    @Test("prepareQueue loads without playing; play then starts it (S32)")
    func prepare() async {
        let rig = PlaybackRig()
        #expect(await rig.controller.prepareQueue(PlaybackRig.tracks(3), startAt: 1) == .success)
        await rig.settle()
        // The gapless successor is named with the load itself, so even a very short item can reach it.
        let next = NextItem(uri: "file:///music/track3.ogg", token: PlaybackToken(2))
        #expect(rig.engine.calls.contains(.load(uri: "file:///music/track2.ogg", token: PlaybackToken(1), startAt: nil,
                                                next: next)))
        #expect(!rig.engine.calls.contains(.play))
        #expect(await rig.controller.snapshot.state == .paused)
        #expect(await rig.current == "track:2")
        #expect(rig.recorder.events.isEmpty, "nothing started")
        #expect(await rig.controller.play() == .success)
        #expect(await rig.events(atLeast: 1) == [.trackStarted(identifier: "track:2")])
    }

    @Test("an empty queue or a start outside it is refused")
    func badQueue() async {
        let rig = PlaybackRig()
        #expect(await rig.controller.setQueue([], play: true).failure?.message == "the queue has no items")
        if case .invalid = await rig.controller.setQueue(PlaybackRig.tracks(2), startAt: 2, play: true).failure {
        } else {
            Issue.record("a start outside the queue must be invalid")
        }
    }

    @Test("repeat and shuffle adopt the target state; the same one twice is harmless (S10)")
    func modesIdempotent() async {
        let rig = await PlaybackRig.loaded(count: 6, startAt: 2)
        #expect(await rig.controller.setShuffleMode(.items) == .success)
        let shuffled = await rig.controller.snapshot
        #expect(await rig.controller.setShuffleMode(.items) == .success)
        #expect(await rig.controller.setRepeatMode(.one) == .success)
        #expect(await rig.controller.setRepeatMode(.one) == .success)
        let after = await rig.controller.snapshot
        #expect(after.queue.identifiers == shuffled.queue.identifiers)
        #expect(after.identifier == "track:3")
        #expect(after.queue.index == 0)
        #expect(after.queue.repeatMode == .one)
    }

    @Test("a lost output answers deviceLost until it comes back")
    func deviceLost() async {
        let rig = await PlaybackRig.loaded()
        rig.engine.loseDevice()
        await rig.settle()
        #expect(await rig.controller.snapshot.state == .paused)
        let events = await rig.events(atLeast: 2)
        #expect(events.last == .error(identifier: "track:1", AudioError(.device, "audio output disappeared")))
        #expect(await rig.controller.play() == .failed(.deviceLost("audio output disappeared")))
        rig.engine.restoreDevice()
        #expect(await rig.controller.play() == .success)
    }

    @Test("audio streams are chosen by index or language")
    func audioStreams() async {
        let rig = await PlaybackRig.loaded()
        rig.engine.setAudioStreams([
            AudioStreamOption(index: 0, languageTag: "en", isActive: true),
            AudioStreamOption(index: 1, languageTag: "ko", isActive: false),
        ])
        #expect(await rig.controller.selectAudioStream(languageTag: "KO") == .success)
        #expect(rig.engine.calls.last == .selectAudioStream(1))
        #expect(await rig.controller.audioStreams().first { $0.isActive }?.index == 1)
        #expect(await rig.controller.selectAudioStream(7).failure == .invalid("the item has no audio stream 7"))
        if case .invalid = await rig.controller.selectAudioStream(languageTag: "fr").failure {
        } else {
            Issue.record("an unknown language must be invalid")
        }
    }
}
