import MediaNodeTesting
import Playback
import Synchronization
import Testing

/// What now playing gets: snapshots on changes only, tags and duration, interruptions.
@Suite("Playback snapshots")
struct PlaybackSnapshotTests {
    @Test("a snapshot goes out on a change, never on a clock tick")
    func changesOnly() async {
        let rig = await PlaybackRig.loaded()
        let seen = Mutex<[PlaybackSnapshot]>([])
        let controller = rig.controller
        let reader = Task {
            for await snapshot in controller.snapshots { seen.withLock { $0.append(snapshot) } }
        }
        defer { reader.cancel() }
        await rig.eventually { seen.withLock { $0.last?.state == .playing } }
        rig.clock.advance(by: 30)
        try? await Task.sleep(for: .milliseconds(20))
        #expect(seen.withLock { $0.count } == 1, "time passing publishes nothing")
        await rig.controller.pause()
        await rig.eventually { seen.withLock { $0.last?.state == .paused } }
        let paused = seen.withLock { $0.last! }
        #expect(paused.elapsed == 30)
        #expect(paused.playbackRate == 0)
        #expect(paused.timestamp == rig.clock.now())
    }

    @Test("the live position is extrapolated from elapsed, timestamp and rate")
    func extrapolation() async {
        let rig = await PlaybackRig.loaded()
        await rig.controller.seek(to: 50)
        await rig.settle()  // the seek lands: the engine plays at the new place
        let snapshot = await rig.controller.snapshot
        #expect(snapshot.elapsed(at: snapshot.timestamp + 10) == 60)
        #expect(snapshot.elapsed(at: snapshot.timestamp + 1_000) == 200, "never past the end")
        #expect(snapshot.queueIndex == 0)
        #expect(snapshot.queueCount == 4)
        #expect(snapshot.defaultPlaybackRate == 1)
    }

    @Test("tags and duration from the stream update the snapshot")
    func tagsAndDuration() async {
        let rig = await PlaybackRig.loaded()
        let token = rig.engine.currentToken!
        var tags = StreamTags()
        tags.title = "Style"
        tags.artist = "Taylor Swift"
        rig.engine.emit(.tags(token, tags))
        var more = StreamTags()
        more.albumTitle = "1989"
        rig.engine.emit(.tags(token, more))
        rig.engine.emit(.duration(token, 231))
        await rig.settle()
        let snapshot = await rig.controller.snapshot
        #expect(snapshot.tags.title == "Style")
        #expect(snapshot.tags.artist == "Taylor Swift")
        #expect(snapshot.tags.albumTitle == "1989")
        #expect(snapshot.duration == 231)
        await rig.controller.nextTrack()
        #expect(await rig.controller.snapshot.tags.isEmpty, "a new item starts without the old tags")
    }

    @Test("a stopped controller publishes a stopped snapshot with nothing in it")
    func stoppedSnapshot() async {
        let rig = await PlaybackRig.loaded()
        await rig.controller.stop()
        let snapshot = await rig.controller.snapshot
        #expect(snapshot.state == .stopped)
        #expect(snapshot.item == nil)
        #expect(snapshot.duration == nil)
        #expect(snapshot.elapsed == 0)
        #expect(snapshot.playbackRate == 0)
    }

    @Test("an interruption pauses and resumes when asked to")
    func interruption() async {
        let rig = await PlaybackRig.loaded()
        #expect(await rig.controller.beginInterruption() == .success)
        var snapshot = await rig.controller.snapshot
        #expect(snapshot.state == .interrupted)
        #expect(snapshot.playbackRate == 0)
        #expect(!rig.engine.isPlaying)
        #expect(await rig.controller.endInterruption(shouldResume: true) == .success)
        snapshot = await rig.controller.snapshot
        #expect(snapshot.state == .playing)
        #expect(rig.engine.isPlaying)
    }

    @Test("an interruption that should not resume leaves playback paused")
    func interruptionNoResume() async {
        let rig = await PlaybackRig.loaded()
        await rig.controller.beginInterruption()
        await rig.controller.endInterruption(shouldResume: false)
        #expect(await rig.controller.snapshot.state == .paused)
    }

    @Test("a ducking interruption lowers the volume and keeps playing")
    func duck() async {
        let rig = await PlaybackRig.loaded()
        await rig.controller.beginInterruption(duck: true)
        #expect(rig.engine.volume == 0.2)
        #expect(await rig.controller.snapshot.state == .playing)
        await rig.controller.endInterruption(shouldResume: true)
        #expect(rig.engine.volume == 1)
    }

    @Test("the fact loop ends and finishes the streams when the engine shuts down")
    func shutdown() async {
        let rig = PlaybackRig()
        await rig.engine.shutdown()
        var iterator = rig.controller.snapshots.makeAsyncIterator()
        #expect(await iterator.next() == nil)
    }
}
