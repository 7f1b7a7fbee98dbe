import Foundation
import MediaJSON
import MediaNode
import Testing

/// S31 when the catalog is slow: the place a pause left is known to the player before the catalog holds it.
@Suite("playItem right after a pause")
struct ResumeAfterPauseTests {
    @Test("the item just paused resumes where it stands, even before its position reaches the catalog")
    func resumesBeforeTheSaveLands() async throws {
        let rig = try await NodeRig.start(tracks: 2)
        #expect(try await rig.request("playItem", #","identifier":"track:1""#)["status"] == "success")
        try await Task.sleep(for: .milliseconds(1500))
        // A loaded machine: the playback observers hand the pause's place to the catalog seconds late.
        rig.catalog.delaySaves(by: .seconds(3))
        #expect(try await rig.request("pause")["status"] == "success")
        let paused = try await rig.retained(rig.topics.nowPlaying) { $0["state"] == "paused" }
        let left = try #require(paused["elapsedPlaybackTime"]?.numberValue)
        #expect(left >= 1.4, "\(paused.jsonString)")

        #expect(try await rig.request("playItem", #","identifier":"track:1""#)["status"] == "success")
        let playing = try await rig.retained(rig.topics.nowPlaying) { $0["state"] == "playing" }
        let from = try #require(playing["elapsedPlaybackTime"]?.numberValue)
        #expect(abs(from - left) < 0.1, "paused at \(left) s, played from \(from) s: \(playing.jsonString)")
        rig.catalog.delaySaves(by: nil)
        await rig.stop()
    }
}
