import MediaNodeTesting
import Playback
import Testing

/// How the controller moves through the queue: ends of items (S15), gapless switches, failures.
@Suite("Playback controller advancing")
struct PlaybackControllerAdvanceTests {
    @Test("the end of an item plays the next one")
    func endAdvances() async {
        let rig = await PlaybackRig.loaded()
        rig.engine.emit(.endOfStream(rig.engine.currentToken!))
        await rig.settle()
        #expect(await rig.current == "track:2")
        #expect(rig.engine.loadedURI == "file:///music/track2.ogg")
        #expect(rig.engine.isPlaying)
        let events = await rig.events(atLeast: 3)
        #expect(events == [
            .trackStarted(identifier: "track:1"),
            .trackEnded(identifier: "track:1", reason: .finished, position: 200),
            .trackStarted(identifier: "track:2"),
        ])
    }

    @Test("the end of the last item with repeat off stops, keeping the items for play")
    func endStops() async {
        let rig = await PlaybackRig.loaded(count: 2, startAt: 1)
        rig.engine.finishCurrentItem()
        await rig.settle()
        let snapshot = await rig.controller.snapshot
        #expect(snapshot.state == .stopped)
        #expect(snapshot.item == nil)
        #expect(snapshot.queue.count == 2)
        #expect(snapshot.queue.index == nil)
        #expect(await rig.controller.pause() == .failed(.nothingLoaded))
        #expect(await rig.controller.play() == .success)
        #expect(await rig.current == "track:1")
    }

    @Test("repeat all wraps from the last item to the first")
    func repeatAllWraps() async {
        let rig = await PlaybackRig.loaded(count: 2, startAt: 1)
        await rig.controller.setRepeatMode(.all)
        #expect(rig.engine.preloadedURI == "file:///music/track1.ogg")
        rig.engine.finishCurrentItem()
        await rig.settle()
        #expect(await rig.current == "track:1")
    }

    @Test("repeat one replays the item at its natural end")
    func repeatOneReplays() async {
        let rig = await PlaybackRig.loaded()
        await rig.controller.setRepeatMode(.one)
        #expect(rig.engine.preloadedURI == "file:///music/track1.ogg")
        let firstToken = rig.engine.currentToken
        rig.engine.finishCurrentItem()
        await rig.settle()
        #expect(await rig.current == "track:1")
        #expect(rig.engine.currentToken != firstToken)
        let events = await rig.events(atLeast: 3)
        #expect(events.suffix(2) == [
            .trackEnded(identifier: "track:1", reason: .finished, position: 200),
            .trackStarted(identifier: "track:1"),
        ])
    }

    @Test("repeat one still lets nextTrack move on")
    func repeatOneNext() async {
        let rig = await PlaybackRig.loaded()
        await rig.controller.setRepeatMode(.one)
        #expect(await rig.controller.nextTrack() == .success)
        #expect(await rig.current == "track:2")
    }

    @Test("repeat one replays at an end of stream without a preload too")
    func repeatOneWithoutPreload() async {
        let rig = await PlaybackRig.loaded()
        await rig.controller.setRepeatMode(.one)
        rig.engine.emit(.endOfStream(rig.engine.currentToken!))
        await rig.settle()
        #expect(await rig.current == "track:1")
        #expect(rig.engine.calls.filter { if case .load = $0 { true } else { false } }.count == 2)
    }

    @Test("the preloaded item takes over gaplessly without a new load")
    func gapless() async {
        let rig = await PlaybackRig.loaded()
        #expect(rig.engine.preloadedURI == "file:///music/track2.ogg")
        rig.engine.clearCalls()
        rig.engine.finishCurrentItem()
        await rig.settle()
        let snapshot = await rig.controller.snapshot
        #expect(snapshot.identifier == "track:2")
        #expect(snapshot.queue.index == 1)
        #expect(snapshot.elapsed == 0)
        #expect(!rig.engine.calls.contains { if case .load = $0 { true } else { false } })
        #expect(rig.engine.preloadedURI == "file:///music/track3.ogg", "the preload moves on")
    }

    @Test("the preload follows the modes")
    func preloadFollowsModes() async {
        let rig = await PlaybackRig.loaded(count: 3, startAt: 2)
        #expect(rig.engine.preloadedURI == nil, "nothing after the last item with repeat off")
        await rig.controller.setRepeatMode(.all)
        #expect(rig.engine.preloadedURI == "file:///music/track1.ogg")
        await rig.controller.setRepeatMode(.one)
        #expect(rig.engine.preloadedURI == "file:///music/track3.ogg")
        await rig.controller.setRepeatMode(.off)
        #expect(rig.engine.preloadedURI == nil)
        await rig.controller.setShuffleMode(.items)
        let next = await rig.controller.currentQueue.item(at: 1)
        #expect(rig.engine.preloadedURI == next?.uri)
    }

    @Test("nextTrack past the last item with repeat off stops")
    func nextPastEnd() async {
        let rig = await PlaybackRig.loaded(count: 2, startAt: 1)
        #expect(await rig.controller.nextTrack() == .success)
        #expect(await rig.controller.snapshot.state == .stopped)
        let events = await rig.events(atLeast: 2)
        #expect(events.last == .trackEnded(identifier: "track:2", reason: .skipped, position: 0))
    }

    @Test("nextTrack while paused loads the next item paused")
    func nextWhilePaused() async {
        let rig = await PlaybackRig.loaded(play: false)
        #expect(await rig.controller.nextTrack() == .success)
        #expect(await rig.controller.snapshot.state == .paused)
        #expect(await rig.current == "track:2")
        #expect(!rig.engine.isPlaying)
    }

    @Test("an item that fails to load is reported and skipped")
    func skipOnLoadFailure() async {
        let rig = await PlaybackRig.loaded()
        rig.engine.failLoading("file:///music/track2.ogg")
        #expect(await rig.controller.nextTrack() == .success)
        await rig.settle()
        #expect(await rig.current == "track:3")
        let events = await rig.events(atLeast: 4)
        #expect(events.contains(.error(identifier: "track:2", AudioError(.item, "cannot open file:///music/track2.ogg"))))
        #expect(events.last == .trackStarted(identifier: "track:3"))
    }

    @Test("an error while playing skips to the next item and names the failed one")
    func skipOnPlaybackError() async {
        let rig = await PlaybackRig.loaded()
        rig.engine.failCurrentItem("decoder gave up")
        await rig.settle()
        #expect(await rig.current == "track:2")
        #expect(rig.engine.isPlaying)
        let events = await rig.events(atLeast: 4)
        #expect(events[1] == .error(identifier: "track:1", AudioError(.item, "decoder gave up")))
        #expect(events[2] == .trackEnded(identifier: "track:1", reason: .failed, position: 0))
    }

    @Test("when every item fails, playback stops and the request answers unplayable")
    func everythingFails() async {
        let rig = PlaybackRig()
        for item in PlaybackRig.tracks(3) { rig.engine.failLoading(item.uri) }
        let outcome = await rig.controller.setQueue(PlaybackRig.tracks(3), play: true)
        if case .unplayable = outcome.failure {} else { Issue.record("expected unplayable, got \(outcome)") }
        #expect(await rig.controller.snapshot.state == .stopped)
        #expect(await rig.events(atLeast: 3).count == 3)
    }

    @Test("a preloaded item that fails is dropped from the preload and skipped when reached")
    func preloadFailure() async throws {
        let rig = await PlaybackRig.loaded()
        let preloadToken = try #require(rig.engine.preloadedToken)
        rig.engine.emit(.error(preloadToken, AudioError(.item, "not found")))
        await rig.settle()
        #expect(rig.engine.preloadedURI == nil)
        #expect(await rig.current == "track:1")
    }

    @Test("facts from an earlier load are ignored")
    func staleFacts() async {
        let rig = await PlaybackRig.loaded()
        let oldToken = rig.engine.currentToken!
        await rig.controller.nextTrack()
        rig.engine.emit(.endOfStream(oldToken))
        rig.engine.emit(.error(oldToken, AudioError(.item, "late")))
        await rig.settle()
        #expect(await rig.current == "track:2")
    }

    @Test("waitUntilStarted answers once audio really plays (S24)")
    func waitUntilStarted() async {
        let rig = PlaybackRig()
        #expect(await rig.controller.waitUntilStarted() == .failed(.nothingLoaded))
        await rig.controller.setQueue(PlaybackRig.tracks(2), play: true)
        #expect(await rig.controller.waitUntilStarted() == .success)
        await rig.controller.prepareQueue(PlaybackRig.tracks(2, prefix: "other"))
        async let started = rig.controller.waitUntilStarted()
        await rig.eventually { rig.engine.emittedFactCount > 0 }
        await rig.controller.play()
        #expect(await started == .success)
    }
}

@Suite("Playback controller failing items")
struct PlaybackControllerFailureLoopTests {
    @Test("items that all fail while playing under repeat all stop instead of looping")
    func everyItemFailsWhilePlaying() async {
        let rig = PlaybackRig()
        await rig.controller.setRepeatMode(.all)
        // Loads succeed but each item breaks off before it starts.
        await rig.controller.prepareQueue(PlaybackRig.tracks(3))
        for _ in 0..<3 {
            rig.engine.failCurrentItem("stream broke off")
            await rig.settle()
        }
        #expect(await rig.controller.snapshot.state == .stopped)
        let errors = await rig.events(atLeast: 3).filter { if case .error = $0 { true } else { false } }
        #expect(errors.count == 3)
    }
}
