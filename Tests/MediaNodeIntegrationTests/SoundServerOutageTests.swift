import Foundation
import MediaJSON
import MediaNodeTesting
import Testing

extension SoundServerTests {
    /// The sound server gone: crashed and restarted while the music plays, or not yet there when the node starts.
    @Suite("The car's sound server away")
    struct OutageTests {
        @Test("SIGKILLed and restarted: interrupted within 2 s, outputLost and one log line; the music back within 2 s of its return, from where it was lost")
        func serverRestarts() async throws {
            let server = try await PrivateSoundServer()
            defer { server.stop() }
            let (rig, before) = try await PhoneCallTests.playing(server, for: 3.3)
            defer { rig.stop() }

            let killedAt = Date()
            await server.kill()
            let (held, heldAt) = try await rig.waitForState("interrupted", timeout: 5)
            let lost = try await rig.waitForEvent("outputLost") { $0["type"] == "outputLost" }
            try await sleep(1.5)
            try await server.start()
            let returnedAt = Date()
            let after = try server.record()
            let (_, playingAt) = try await rig.waitForState("playing", timeout: 5)
            try await rig.waitForEvent("outputRestored") { $0["type"] == "outputRestored" }
            try await after.waitFor(seconds: 3)

            let runsBefore = try before.wav().toneStepRuns()
            let stopped = try #require(runsBefore.positionWhereMusicStopped(before: before.seconds),
                                       "where the music stopped: \(runsBefore)")
            let runs = try after.wav().toneStepRuns()
            let resumed = try #require(runs.positionWhereMusicResumed(after: 0), "where it went on: \(runs)")
            let heardAgain = try #require(after.wallTime(at: resumed.at))
            let lossLines = rig.node.log.split(separator: "\n").filter { $0.contains("does not answer") }
            print(String(format: "server restart: interrupted %.3f s after the kill (held at %.3f s); music stopped at %.3f s, "
                    + "back %.3f s after the server's return (now playing: playing %.3f s after), from %.3f s (%+.3f s: + lost, - repeated)",
                         heldAt.timeIntervalSince(killedAt), held["elapsedPlaybackTime"]?.numberValue ?? -1, stopped,
                         heardAgain - returnedAt.timeIntervalSince1970, playingAt.timeIntervalSince(returnedAt), resumed.position,
                         resumed.position - stopped))
            #expect(heldAt.timeIntervalSince(killedAt) < 2, "held as interrupted within 2 s")
            #expect(lost["message"]?.stringValue?.contains("sound server") == true, "\(lost.jsonString)")
            #expect(heardAgain - returnedAt.timeIntervalSince1970 < 2, "heard again within 2 s of the server's return")
            #expect(abs(resumed.position - stopped) < 2, "from where it was lost")
            #expect(lossLines.count == 1, "the loss is logged once: \(lossLines)")
            after.stop()
        }

        /// A corked sink writes nothing, so it notices no loss by itself; and asked where it stands after its
        /// server died, it reads a stale place (where it last started or seeked, seconds back). Restarted at
        /// once, the server answers before anything notices it was gone, but the music's stream went with it.
        @Test("SIGKILLed during a phone call (and started again 1.5 s later, or at once): outputLost, and the music the call held plays on after the server's return, from where the call held it",
              arguments: [1.5, 0])
        func serverRestartsDuringACall(away: Double) async throws {
            let server = try await PrivateSoundServer()
            defer { server.stop() }
            let (rig, before) = try await PhoneCallTests.playing(server, for: 3.3)
            defer { rig.stop() }
            let call = try await PrivateSoundServer.phoneCall(seconds: 6, in: rig.directory)
            let phone = server.play(call, role: "phone")
            let (held, _) = try await rig.waitForState("interrupted", timeout: 5)
            try await sleep(1.5)
            let killedAt = Date()
            await server.kill()
            _ = try? await phone.value
            try await sleep(away)
            try await server.start()
            let after = try server.record()
            let lost: JSONValue
            do {
                lost = try await rig.waitForEvent("outputLost", timeout: 5) { $0["type"] == "outputLost" }
            } catch {
                Issue.record("no outputLost: \(error); the node's log: \(rig.node.log.split(separator: "\n").suffix(30).joined(separator: "\n"))")
                throw error
            }
            let (_, playingAt) = try await rig.waitForState("playing", timeout: 5)
            try await after.waitFor(seconds: 3)

            let runsBefore = try before.wav().toneStepRuns()
            let stopped = try #require(runsBefore.positionWhereMusicStopped(before: before.second(atWallTime: killedAt.timeIntervalSince1970) ?? before.seconds),
                                       "where the call held the music: \(runsBefore)")
            let runs = try after.wav().toneStepRuns()
            let resumed = try #require(runs.positionWhereMusicResumed(after: 0), "where it went on: \(runs)")
            print(String(format: "server restart during a call (away %.1f s): %@; held at %.3f s (now playing %.3f s); back (now playing: playing %.3f s after the kill) from %.3f s (%+.3f s: + lost, - repeated)",
                         away, lost["message"]?.stringValue ?? "-", stopped, held["elapsedPlaybackTime"]?.numberValue ?? -1, playingAt.timeIntervalSince(killedAt),
                         resumed.position, resumed.position - stopped))
            #expect(lost["message"]?.stringValue?.contains("sound server") == true, "\(lost.jsonString)")
            #expect(abs(resumed.position - stopped) < 1, "from where the call held it")
            after.stop()
        }

        @Test("paused by the listener when the server restarts: outputLost and outputRestored, it stays paused, and play plays on from where it was paused")
        func serverRestartsWhilePaused() async throws {
            let server = try await PrivateSoundServer()
            defer { server.stop() }
            let (rig, before) = try await PhoneCallTests.playing(server, for: 3.3)
            defer { rig.stop() }
            #expect(try await rig.status("pause") == "success")
            try await sleep(1)
            await server.kill()
            try await server.start()
            try await rig.waitForEvent("outputLost", timeout: 5) { $0["type"] == "outputLost" }
            try await rig.waitForEvent("outputRestored", timeout: 5) { $0["type"] == "outputRestored" }
            #expect(await rig.nowPlaying?["state"]?.stringValue == "paused", "the pause stands")
            let after = try server.record()
            #expect(try await rig.status("play") == "success", "play plays on the restarted server")
            try await after.waitFor(seconds: 2.5)

            let runsBefore = try before.wav().toneStepRuns()
            let stopped = try #require(runsBefore.positionWhereMusicStopped(before: before.seconds), "where it was paused: \(runsBefore)")
            let runs = try after.wav().toneStepRuns()
            let resumed = try #require(runs.positionWhereMusicResumed(after: 0), "where it went on: \(runs)")
            print(String(format: "server restart while paused: paused at %.3f s, played on from %.3f s (%+.3f s: + lost, - repeated)",
                         stopped, resumed.position, resumed.position - stopped))
            #expect(abs(resumed.position - stopped) < 1, "from where it was paused")
            after.stop()
        }

        @Test("no sound server at start: the node comes online; playItem and play answer deviceNotFound naming the sound server; once it answers, play plays")
        func absentAtStart() async throws {
            let server = try await PrivateSoundServer(startNow: false)
            defer { server.stop() }
            var steps: URL?
            let rig = try await SoundServerRig.start(server: server) { steps = try await ToneSteps.write(count: 8, named: "steps.ogg", in: $0) }
            defer { rig.stop() }

            let playItem = try await rig.send("playItem", #""identifier":"\#(rig.identifier(of: try #require(steps)))""#).reply
            let play = try await rig.send("play").reply
            try await server.start()
            let recording = try server.record()
            try await rig.waitForEvent("outputRestored") { $0["type"] == "outputRestored" }
            let (reply, repliedAt) = try await rig.send("play")
            try await recording.waitFor(seconds: 2.5)
            let runs = try recording.wav().toneStepRuns()
            let heardAt = runs.heard.first.flatMap { recording.wallTime(at: $0.start) }
            print("no server at start: playItem \(playItem.jsonString), play \(play.jsonString); once it answers: play \(reply["status"]?.stringValue ?? "-"), steps \(runs.heard.compactMap(\.step))")
            for refused in [playItem, play] {
                #expect(refused["status"] == "deviceNotFound", "\(refused.jsonString)")
                #expect(refused["message"]?.stringValue?.contains("sound server at \(server.address)") == true, "\(refused.jsonString)")
            }
            #expect(reply["status"] == "success", "\(reply.jsonString)")
            #expect(runs.heard.first?.step == 0 && runs.isInOrder, "it plays from the start: \(runs)")
            #expect(heardAt.map { $0 - repliedAt.timeIntervalSince1970 < 1 } == true)
            recording.stop()
        }
    }
}
