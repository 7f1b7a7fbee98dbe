import MediaJSON
import NowPlaying
import Playback
import Testing

/// When `P/nowplaying` goes out: on what a reader could not compute, never because time passed.
@Suite("Now playing center")
struct NowPlayingCenterTests {
    /// A player as the node sees it: offers a candidate on every tick, as a careless caller might.
    struct Player {
        var center = NowPlayingCenter()
        var item = QueueItem(identifier: "t:0", uri: "file:///0.ogg", title: "Zero", duration: 10_000)
        var state = PlaybackState.playing
        var rate = 1.0
        var anchorTime = 1_000.0
        var anchorElapsed = 0.0
        var now = 1_000.0
        var index = 0
        var publications: [JSONValue] = []

        /// Where the engine says it is: the true position with a little reporting jitter.
        func position(jitter: Double = 0) -> Double {
            anchorElapsed + (now - anchorTime) * (state == .playing ? rate : 0) + jitter
        }

        mutating func tick(_ seconds: Double = 1, jitter: Double = 0) {
            now += seconds
            offer(jitter: jitter)
        }

        mutating func offer(jitter: Double = 0) {
            let snapshot = PlaybackSnapshot(
                state: state, item: item, elapsed: position(jitter: jitter), timestamp: now,
                playbackRate: state == .playing ? rate : 0, rate: rate, duration: item.duration,
                queue: QueueSummary(identifiers: (0..<5).map { "t:\($0)" }, index: index))
            if let document = center.offer(snapshot: snapshot) { publications.append(document) }
        }

        /// Pins the position before anything that changes how it moves, as the controller does.
        mutating func reanchor(at elapsed: Double? = nil) {
            anchorElapsed = elapsed ?? position()
            anchorTime = now
        }

        /// Runs `ticks` seconds of steady playback and returns how many documents went out.
        mutating func steady(_ ticks: Int) -> Int {
            let before = publications.count
            for tick in 0..<ticks { self.tick(1, jitter: Double(tick % 5 - 2) * 0.05) }
            return publications.count - before
        }

        mutating func change(_ body: (inout Player) -> Void) -> Int {
            let before = publications.count
            body(&self)
            offer()
            offer()  // the same change offered twice goes out once
            return publications.count - before
        }
    }

    static func started() -> Player {
        var player = Player()
        player.offer()
        return player
    }

    @Test("the first candidate always goes out")
    func firstPublishes() {
        let player = Self.started()
        #expect(player.publications.count == 1)
        #expect(player.publications[0]["state"] == "playing")
    }

    @Test("steady playback publishes nothing over many ticks")
    func steadyIsSilent() {
        var player = Self.started()
        #expect(player.steady(3_600) == 0)
        player.rate = 2
        _ = player.change { $0.reanchor() }
        #expect(player.steady(600) == 0, "also at another rate")
        _ = player.change { $0.reanchor(); $0.state = .paused }
        #expect(player.steady(600) == 0, "and while paused")
    }

    @Test("a seek publishes exactly once")
    func seekPublishesOnce() {
        var player = Self.started()
        _ = player.steady(30)
        #expect(player.change { $0.reanchor(at: 120) } == 1)
        #expect(player.publications.last?["elapsedPlaybackTime"] == 120)
        #expect(player.steady(30) == 0)
        #expect(player.change { $0.reanchor(at: $0.position() - 15) } == 1, "a skip back is a jump too")
    }

    @Test("a rate change publishes exactly once")
    func rateChangePublishesOnce() {
        var player = Self.started()
        _ = player.steady(10)
        #expect(player.change { $0.reanchor(); $0.rate = 1.5 } == 1)
        #expect(player.publications.last?["playbackRate"] == 1.5)
        #expect(player.steady(100) == 0)
    }

    @Test("a track change publishes exactly once")
    func trackChangePublishesOnce() {
        var player = Self.started()
        _ = player.steady(10)
        let count = player.change {
            $0.item = QueueItem(identifier: "t:1", uri: "file:///1.ogg", title: "One", duration: 10_000)
            $0.index = 1
            $0.reanchor(at: 0)
        }
        #expect(count == 1)
        #expect(player.publications.last?["identifier"] == "t:1")
        #expect(player.publications.last?["playbackQueueIndex"] == 1)
    }

    @Test("pause and resume publish exactly once each")
    func pausePublishesOnce() {
        var player = Self.started()
        _ = player.steady(42)
        #expect(player.change { $0.reanchor(); $0.state = .paused } == 1)
        #expect(player.publications.last?["playbackRate"] == 0)
        #expect(player.publications.last?["elapsedPlaybackTime"] == 42)
        _ = player.steady(20)
        #expect(player.change { $0.reanchor(); $0.state = .playing } == 1)
        #expect(player.publications.last?["elapsedPlaybackTime"] == 42, "paused time did not count")
    }

    @Test("metadata, artwork and mode changes publish; a repeat of the same does not")
    func otherChanges() {
        var center = NowPlayingCenter()
        let base = NowPlayingInfo(state: .playing, timestamp: 0, elapsedPlaybackTime: 0, playbackRate: 1)
        #expect(center.offer(base) != nil)
        var tagged = base
        tagged.metadata.title = "Now with a title"
        #expect(center.offer(tagged) != nil)
        var pictured = tagged
        pictured.artwork = NowPlayingArtwork(topic: "p/artwork/1", mimeType: "image/png")
        #expect(center.offer(pictured) != nil)
        var shuffled = pictured
        shuffled.shuffleMode = .collections
        #expect(center.offer(shuffled) != nil)
        #expect(center.offer(shuffled) == nil)
        center.reset()
        #expect(center.offer(shuffled) != nil, "after a reset the document goes out again")
    }

    @Test("stopped goes out once however often it is offered")
    func stoppedOnce() {
        var center = NowPlayingCenter()
        #expect(center.offer(snapshot: PlaybackSnapshot(timestamp: 1))?.jsonString == #"{"state":"stopped"}"#)
        #expect(center.offer(snapshot: PlaybackSnapshot(timestamp: 99)) == nil)
    }

    @Test("drift is measured from the extrapolated position with the tolerance as the bound")
    func extrapolationArithmetic() {
        var center = NowPlayingCenter(positionTolerance: 0.25)
        let last = NowPlayingInfo(
            state: .playing, timestamp: 100, elapsedPlaybackTime: 10, playbackRate: 1.5, playbackDuration: 60)
        #expect(center.offer(last) != nil)
        #expect(last.elapsed(at: 104) == 16, "10 + (104 - 100) x 1.5")
        func candidate(at time: Double, _ elapsed: Double) -> NowPlayingInfo {
            var next = last
            next.timestamp = time
            next.elapsedPlaybackTime = elapsed
            return next
        }
        #expect(!center.shouldPublish(candidate(at: 104, 16.25)), "exactly the tolerance is no jump")
        #expect(!center.shouldPublish(candidate(at: 104, 15.8)))
        #expect(center.shouldPublish(candidate(at: 104, 16.3)))
        #expect(center.shouldPublish(candidate(at: 104, 15.7)))
        #expect(center.shouldPublish(candidate(at: 104, 10)), "a reader would think it still moves")
        #expect(!center.shouldPublish(candidate(at: 200, 60)), "the extrapolation stops at the duration")
        #expect(center.offer(candidate(at: 104, 16.1)) == nil)
        #expect(center.published?.timestamp == 100, "the basis stays what readers last received")
    }
}
