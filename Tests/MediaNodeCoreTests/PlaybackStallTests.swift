import MediaNodeTesting
import Playback
import Testing

@Suite("A stream that runs dry while it plays is reported as a stall")
struct PlaybackStallTests {
    @Test("buffering below 100% while playing is one stall until the buffer is full again")
    func oneStallPerDrop() async throws {
        let rig = await PlaybackRig.loaded()
        let token = try #require(rig.engine.currentToken)
        let before = rig.recorder.events.count
        for percent in [40, 10, 60, 100, 100, 30, 100] { rig.engine.emit(.buffering(token, percent: percent)) }
        await rig.settle()
        // The events reach the recorder on a task of their own: wait for them, then for any extra one.
        let recorder = rig.recorder
        @Sendable func stalls() -> Int { recorder.events.dropFirst(before).count { $0 == .stalled(identifier: "track:1") } }
        await rig.eventually { stalls() >= 2 }
        try await Task.sleep(for: .milliseconds(50))
        #expect(stalls() == 2)
    }

    @Test("buffering while paused is no stall: nothing waits for the sound")
    func noStallWhilePaused() async throws {
        let rig = await PlaybackRig.loaded()
        #expect(await rig.controller.pause() == .success)
        let token = try #require(rig.engine.currentToken)
        rig.engine.emit(.buffering(token, percent: 10))
        await rig.settle()
        #expect(!rig.recorder.events.contains(.stalled(identifier: "track:1")))
    }
}
