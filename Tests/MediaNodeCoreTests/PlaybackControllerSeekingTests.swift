import MediaNodeTesting
import Playback
import Testing

/// Position commands: seek, skip, held seeks, rate, and previousTrack's 3-second rule.
@Suite("Playback controller seeking")
struct PlaybackControllerSeekingTests {
    static let live = QueueItem(identifier: "radio:1", uri: "http://radio.example/stream", isLiveStream: true)

    @Test("previousTrack more than 3 s in restarts the current item")
    func previousRestarts() async {
        let rig = await PlaybackRig.loaded(startAt: 1)
        rig.clock.advance(by: 5)
        #expect(await rig.controller.previousTrack() == .success)
        #expect(await rig.current == "track:2")
        #expect(rig.engine.calls.last == .seek(0))
    }

    @Test("previousTrack within 3 s moves to the item before")
    func previousMoves() async {
        let rig = await PlaybackRig.loaded(startAt: 1)
        rig.clock.advance(by: 2)
        #expect(await rig.controller.previousTrack() == .success)
        #expect(await rig.current == "track:1")
        let events = await rig.events(atLeast: 3)
        #expect(events[1] == .trackEnded(identifier: "track:2", reason: .skipped, position: 2))
    }

    @Test("previousTrack at the first item with repeat off restarts it")
    func previousAtStart() async {
        let rig = await PlaybackRig.loaded()
        rig.clock.advance(by: 1)
        #expect(await rig.controller.previousTrack() == .success)
        #expect(await rig.current == "track:1")
        #expect(rig.engine.calls.last == .seek(0))
    }

    @Test("seek moves the position and now playing")
    func seek() async {
        let rig = await PlaybackRig.loaded()
        #expect(await rig.controller.seek(to: 42) == .success)
        #expect(rig.engine.calls.last == .seek(42))
        let snapshot = await rig.controller.snapshot
        #expect(snapshot.elapsed == 42)
        #expect(snapshot.timestamp == rig.clock.now())
    }

    @Test("a seek while playing shows the target standing still until audio flows there, then runs from there")
    func seekLanding() async {
        let rig = await PlaybackRig.loaded()
        rig.engine.holdSeekLandings(true)
        #expect(await rig.controller.seek(to: 42) == .success)
        var snapshot = await rig.controller.snapshot
        #expect(snapshot.state == .playing && snapshot.elapsed == 42 && snapshot.playbackRate == 0)
        // Seconds on a slow network: the position must not run ahead of the audio, nor be read from the
        // engine (which would wait for the preroll), and a skip counts from the target.
        rig.clock.advance(by: 3)
        #expect(await rig.controller.position() == 42)
        #expect(await rig.controller.skip(by: 10) == .success)
        #expect(rig.engine.calls.last == .seek(52))
        rig.engine.landSeek()
        await rig.settle()
        snapshot = await rig.controller.snapshot
        #expect(snapshot.state == .playing && snapshot.elapsed == 52 && snapshot.playbackRate == 1)
        rig.clock.advance(by: 2)
        #expect(await rig.controller.position() == 54)
    }

    @Test("pause while a seek is landing freezes now playing at the target")
    func pauseWhileLanding() async {
        let rig = await PlaybackRig.loaded()
        rig.engine.holdSeekLandings(true)
        #expect(await rig.controller.seek(to: 42) == .success)
        rig.clock.advance(by: 3)
        #expect(await rig.controller.pause() == .success)
        let snapshot = await rig.controller.snapshot
        #expect(snapshot.state == .paused && snapshot.elapsed == 42 && snapshot.playbackRate == 0)
    }

    @Test("seek outside the item or to another item is refused")
    func seekRefused() async {
        let rig = await PlaybackRig.loaded()
        #expect(await rig.controller.seek(to: -1).failure == .invalid("position -1.0 is negative"))
        #expect(await rig.controller.seek(to: 201).failure == .invalid("position 201.0 is beyond the item's 200.0 seconds"))
        #expect(await rig.controller.seek(to: 10, identifier: "track:9") == .failed(.noSuchContent("track:9 is not the current item")))
        #expect(await rig.controller.seek(to: 10, identifier: "track:1") == .success)
    }

    @Test("a duration the audio played past is a guess: a seek beyond it goes through and the length is unknown again")
    func durationPlayedPastIsForgotten() async {
        let rig = await PlaybackRig.loaded()
        // GStreamer's first bitrate guess for an Ogg episode over HTTP, never corrected.
        rig.engine.emit(.duration(rig.engine.currentToken!, 0.34))
        await rig.settle()
        #expect(await rig.controller.snapshot.duration == 0.34)
        rig.clock.advance(by: 5)
        #expect(await rig.controller.seek(to: 90) == .success)
        #expect(rig.engine.calls.last == .seek(90))
        #expect(await rig.controller.snapshot.duration == nil)
        // A skip is not held back by it either.
        rig.engine.emit(.duration(rig.engine.currentToken!, 0.5))
        await rig.settle()
        #expect(await rig.controller.skip(by: 10) == .success)
        #expect(rig.engine.calls.last == .seek(100))
    }

    @Test("skip moves relative to the position and stops at the item's ends")
    func skip() async {
        let rig = await PlaybackRig.loaded()
        rig.clock.advance(by: 10)
        #expect(await rig.controller.skip(by: 15) == .success)
        #expect(rig.engine.calls.last == .seek(25))
        #expect(await rig.controller.skip(by: -60) == .success)
        #expect(rig.engine.calls.last == .seek(0))
        #expect(await rig.controller.skip(by: 500) == .success)
        #expect(rig.engine.calls.last == .seek(200))
    }

    @Test("a live stream refuses position and rate commands (S14) and moves on previousTrack")
    func liveStream() async {
        let rig = PlaybackRig()
        await rig.controller.setQueue(PlaybackRig.tracks(1) + [Self.live], startAt: 1, play: true)
        rig.clock.advance(by: 60)
        #expect(await rig.controller.seek(to: 1).failure == .invalid("a live stream has no position to seek"))
        #expect(await rig.controller.skip(by: 15).failure == .invalid("a live stream has no position to seek"))
        #expect(await rig.controller.beginSeeking(forward: true).failure == .invalid("a live stream has no position to seek"))
        #expect(await rig.controller.setRate(2).failure == .invalid("a live stream plays at its own rate"))
        #expect(await rig.controller.snapshot.duration == nil)
        #expect(await rig.controller.previousTrack() == .success)
        #expect(await rig.current == "track:1")
    }

    @Test("holding fast-forward while playing raises the rate until released")
    func fastForwardHold() async {
        let rig = await PlaybackRig.loaded()
        #expect(await rig.controller.beginSeeking(forward: true) == .success)
        #expect(rig.engine.rate == 3)
        var snapshot = await rig.controller.snapshot
        #expect(snapshot.playbackRate == 3)
        #expect(snapshot.seeking == .forward)
        rig.clock.advance(by: 2)
        #expect(await rig.controller.position() == 6)
        #expect(await rig.controller.endSeeking() == .success)
        #expect(rig.engine.rate == 1)
        snapshot = await rig.controller.snapshot
        #expect(snapshot.playbackRate == 1)
        #expect(snapshot.seeking == nil)
        #expect(snapshot.elapsed == 6)
    }

    @Test("holding rewind steps back every interval until released")
    func rewindHold() async {
        let rig = await PlaybackRig.loaded()
        await rig.controller.seek(to: 30)
        #expect(await rig.controller.beginSeeking(forward: false) == .success)
        #expect(rig.engine.calls.last == .seek(25), "the first step is immediate")
        #expect(await rig.controller.snapshot.seeking == .backward)
        // The step lands (the engine reports playing at 25) before the clock moves: a landing handled after
        // it froze the place at 25 and the next step went to 20 (seen once in a loaded whole-suite run).
        await rig.settle()
        await rig.eventually { rig.clock.sleeperCount == 1 }
        rig.clock.advance(by: 0.5)
        await rig.eventually { rig.engine.calls.last == .seek(20.5) }
        await rig.eventually { rig.clock.sleeperCount == 1 }
        #expect(await rig.controller.endSeeking() == .success)
        await rig.eventually { rig.clock.sleeperCount == 0 }
        let seeks = rig.engine.calls.filter { if case .seek = $0 { true } else { false } }.count
        rig.clock.advance(by: 5)
        try? await Task.sleep(for: .milliseconds(20))
        #expect(rig.engine.calls.filter { if case .seek = $0 { true } else { false } }.count == seeks)
        #expect(await rig.controller.snapshot.seeking == nil)
    }

    @Test("holding fast-forward while paused steps forward")
    func fastForwardWhilePaused() async {
        let rig = await PlaybackRig.loaded(play: false)
        #expect(await rig.controller.beginSeeking(forward: true) == .success)
        #expect(rig.engine.calls.last == .seek(5))
        #expect(rig.engine.rate == 1)
        #expect(await rig.controller.endSeeking() == .success)
    }

    @Test("endSeeking without a held seek is harmless")
    func endWithoutBegin() async {
        let rig = await PlaybackRig.loaded()
        #expect(await rig.controller.endSeeking() == .success)
    }

    @Test("a chosen rate applies now and to the items after (S16)")
    func rate() async {
        let rig = await PlaybackRig.loaded()
        #expect(await rig.controller.setRate(1.5) == .success)
        #expect(rig.engine.rate == 1.5)
        #expect(await rig.controller.snapshot.playbackRate == 1.5)
        await rig.controller.nextTrack()
        #expect(rig.engine.rate == 1.5)
        #expect(await rig.controller.setRate(0).failure == .invalid("rate 0.0 is not positive"))
        await rig.controller.pause()
        let snapshot = await rig.controller.snapshot
        #expect(snapshot.playbackRate == 0, "paused reads 0 (S12)")
        #expect(snapshot.rate == 1.5)
    }
}
