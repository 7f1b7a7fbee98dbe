import Foundation
import MediaJSON
import MediaNodeTesting
import Testing

extension SoundServerTests {
    /// A phone call: a `media.role=phone` stream, which the car's policy (module-role-cork) answers by muting the
    /// music and asking the node to cork it, and by letting it go when the call ends.
    @Suite("A phone call on the car's sound server")
    struct PhoneCallTests {
        /// A node playing 40 one-second tone steps, recorded, `seconds` into them.
        static func playing(_ server: PrivateSoundServer, for seconds: Double) async throws -> (SoundServerRig, MonitorRecording) {
            var steps: URL?
            let rig = try await SoundServerRig.start(server: server) { steps = try await ToneSteps.write(count: 40, named: "steps.ogg", in: $0) }
            let recording = try server.record()
            let reply = try await rig.send("playItem", #""identifier":"\#(rig.identifier(of: try #require(steps)))""#).reply
            #expect(reply["status"] == "success", "\(reply.jsonString)")
            try await recording.waitFor(seconds: recording.seconds + seconds)
            return (rig, recording)
        }

        @Test("interrupted within 0.5 s with the position held and audioFocus lost; after the call the music plays on within 1 s from the second that was playing when it began")
        func callHoldsAndGivesBack() async throws {
            let server = try await PrivateSoundServer()
            defer { server.stop() }
            let (rig, recording) = try await Self.playing(server, for: 3.3)
            defer { rig.stop() }
            let call = try await PrivateSoundServer.phoneCall(seconds: 3, in: rig.directory)

            let callBegan = Date()
            let phone = server.play(call, role: "phone")
            let (held, heldAt) = try await rig.waitForState("interrupted", timeout: 5)
            let heldPosition = try #require(held["elapsedPlaybackTime"]?.numberValue)
            let duringCall = try await server.sinkInputs()
            try await sleep(0.5)
            let stillHeld = try #require(await rig.nowPlaying)
            let callEnded = try await phone.value
            let (_, resumedAt) = try await rig.waitForState("playing", timeout: 5)
            try await recording.waitFor(seconds: recording.seconds + 2.5)

            let runs = try recording.wav().toneStepRuns()
            let callStart = try #require(recording.second(atWallTime: callBegan.timeIntervalSince1970))
            let callEnd = try #require(recording.second(atWallTime: callEnded.timeIntervalSince1970))
            let stopped = try #require(runs.positionWhereMusicStopped(before: callEnd), "where it stopped: \(runs)")
            let resumed = try #require(runs.positionWhereMusicResumed(after: callStart + 0.1), "where it went on: \(runs)")
            let heardAgain = try #require(recording.wallTime(at: resumed.at))
            print(String(format: "phone call: interrupted %.3f s after the call began, held at %.3f s; music stopped at %.3f s "
                    + "and went on from %.3f s (%+.3f s: + lost, - repeated), heard again %.3f s after the call ended "
                    + "(now playing: playing %.3f s after)",
                         heldAt.timeIntervalSince(callBegan), heldPosition, stopped, resumed.position, resumed.position - stopped,
                         heardAgain - callEnded.timeIntervalSince1970, resumedAt.timeIntervalSince(callEnded)))
            #expect(heldAt.timeIntervalSince(callBegan) < 0.5, "interrupted within 0.5 s")
            #expect(stillHeld["state"] == "interrupted" && stillHeld["elapsedPlaybackTime"]?.numberValue == heldPosition
                        && stillHeld["playbackRate"]?.numberValue == 0, "the position holds: \(stillHeld.jsonString)")
            #expect(duringCall.contains { $0.role == "music" && $0.isCorked }, "the music's stream is corked: \(duringCall)")
            #expect(abs(resumed.position - stopped) < 0.3, "it goes on from where it stopped: \(runs)")
            #expect(Int(resumed.position) == Int(stopped) || abs(resumed.position - stopped) < 0.1,
                    "from the second that was playing")
            #expect(abs(heldPosition - stopped) < 0.3, "now playing held the position heard")
            #expect(heardAgain - callEnded.timeIntervalSince1970 < 1, "heard again within 1 s of the call's end")
            #expect(resumedAt.timeIntervalSince(callEnded) < 1)
            let focus = await rig.events().filter { $0["type"] == "audioFocus" }.compactMap { $0["state"]?.stringValue }
            #expect(focus == ["lost", "regained"], "\(focus)")
            recording.stop()
        }

        @Test("a pause during the call is kept: after the call the music stays paused, where it was held")
        func pauseDuringCallIsKept() async throws {
            let server = try await PrivateSoundServer()
            defer { server.stop() }
            let (rig, recording) = try await Self.playing(server, for: 2.3)
            defer { rig.stop() }
            let call = try await PrivateSoundServer.phoneCall(seconds: 2, in: rig.directory)
            let phone = server.play(call, role: "phone")
            let (held, _) = try await rig.waitForState("interrupted", timeout: 5)
            #expect(try await rig.status("pause") == "success")
            try await rig.waitForState("paused")
            let callEnded = try await phone.value
            try await rig.waitForEvent("the server lets the music go") { $0["type"] == "audioFocus" && $0["state"] == "regained" }
            try await sleep(1.5)
            let after = try #require(await rig.nowPlaying)
            let from = try #require(recording.second(atWallTime: callEnded.timeIntervalSince1970 + 0.2))
            let heardAfter = try recording.wav().toneStepRuns(from: from).heard
            #expect(after["state"] == "paused", "the listener's pause stands: \(after.jsonString)")
            #expect(after["elapsedPlaybackTime"] == held["elapsedPlaybackTime"])
            #expect(heardAfter.isEmpty, "no music after the call: \(heardAfter)")
            #expect(try await rig.status("play") == "success", "play goes on")
            recording.stop()
        }
    }
}
