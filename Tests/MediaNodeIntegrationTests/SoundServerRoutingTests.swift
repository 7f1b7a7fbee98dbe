import Foundation
import MediaJSON
import MediaNodeTesting
import Testing

extension SoundServerTests {
    /// Which of the server's sinks the node plays to (`pulse:SINK`, `auto`), in which roles, and the
    /// announcement's stream beside a call that corks the music.
    @Suite("Sinks and roles on the car's sound server")
    struct RoutingTests {
        /// Halfway between two steps: in a 20 ms window (whole cycles of both) it adds nothing to any step's
        /// level, and far enough from the call's 350 Hz that the clip's own span reads clean.
        static let clipFrequency = 2050.0

        /// A library of `steps` one-second tone steps and a 2 s announcement clip at 2050 Hz (no step's tone).
        static func library(steps: Int, into urls: inout (steps: URL?, clip: URL?), at library: URL) async throws {
            urls.steps = try await ToneSteps.write(count: steps, named: "steps.ogg", in: library)
            var track = ToneTrack(fileName: "clip.ogg", frequency: Int(clipFrequency), seconds: 2, title: "Chime")
            track.amplitude = 0.5
            urls.clip = try await AudioFixtures.writeTone(track, in: library.deletingLastPathComponent())
        }

        @Test("pulse:SINK plays to that sink alone, the music in role music and each announcement in the --announcement-role given")
        func namedSinkAndRole() async throws {
            let server = try await PrivateSoundServer()
            defer { server.stop() }
            try await server.addSink("rear")
            var urls: (steps: URL?, clip: URL?)
            let rig = try await SoundServerRig.start(server: server, sink: "pulse:rear", arguments: ["--announcement-role", "navigation"]) {
                try await Self.library(steps: 10, into: &urls, at: $0)
            }
            defer { rig.stop() }
            let rear = try server.record(sink: "rear")
            let speakers = try server.record()
            #expect(try await rig.status("playItem", #""identifier":"\#(rig.identifier(of: try #require(urls.steps)))""#) == "success")
            try await rear.waitFor(seconds: 2.5)
            let announcedAt = Date().timeIntervalSince1970
            #expect(try await rig.status("announce", #""url":"\#(try #require(urls.clip).absoluteString)""#) == "success")
            try await rig.waitForEvent("the announcement started") { $0["type"] == "announcementStarted" }
            let streams = try await server.sinkInputs()
            try await rig.waitForEvent("the announcement finished") { $0["type"] == "announcementFinished" }
            try await rear.waitFor(seconds: rear.seconds + 0.5)

            let heard = try rear.wav()
            let elsewhere = try speakers.wav()
            let from = try #require(rear.second(atWallTime: announcedAt))
            let runs = heard.toneStepRuns(to: from)
            print("pulse:rear: streams \(streams.map { "\($0) on \($0.sink ?? "?")" }); steps on rear before the announcement \(runs.heard.compactMap(\.step)), "
                  + "on the default sink \(elsewhere.toneStepRuns().heard.compactMap(\.step))")
            let music = try #require(streams.first { $0.role == "music" }, "\(streams)")
            let announcement = try #require(streams.first { $0.role == "navigation" }, "\(streams)")
            #expect(music.sink == "rear" && announcement.sink == "rear", "both on the sink named: \(streams)")
            #expect(announcement.properties["application.name"] == "MediaNode")
            #expect(!streams.contains { $0.role == "event" }, "the role given replaces event: \(streams)")
            #expect(runs.heard.count >= 2 && runs.isInOrder, "the music is heard on rear: \(runs)")
            #expect(heard.toneSpan(Self.clipFrequency, from: from) != nil, "the announcement is heard on rear")
            #expect(elsewhere.toneStepRuns().heard.isEmpty && elsewhere.toneSpan(Self.clipFrequency) == nil, "nothing on the default sink")
            rear.stop()
            speakers.stop()
        }

        @Test("pulse:SINK the server lacks: playItem answers deviceNotFound naming the server and the sink; once the sink is there, play plays on it")
        func namedSinkMissing() async throws {
            let server = try await PrivateSoundServer()
            defer { server.stop() }
            var urls: (steps: URL?, clip: URL?)
            let rig = try await SoundServerRig.start(server: server, sink: "pulse:rear") { try await Self.library(steps: 8, into: &urls, at: $0) }
            defer { rig.stop() }
            let refused = try await rig.send("playItem", #""identifier":"\#(rig.identifier(of: try #require(urls.steps)))""#).reply
            try await server.addSink("rear")
            let recording = try server.record(sink: "rear")
            try await rig.waitForEvent("outputRestored") { $0["type"] == "outputRestored" }
            let beforePlay = try #require(await rig.nowPlaying)
            let (reply, repliedAt) = try await rig.send("play")
            try await recording.waitFor(seconds: 2.5)
            let runs = try recording.wav().toneStepRuns()
            let heardAt = runs.heard.first.flatMap { recording.wallTime(at: $0.start) }
            print("pulse:rear missing: \(refused.jsonString); once there: play \(reply["status"]?.stringValue ?? "-"), steps \(runs.heard.compactMap(\.step))")
            #expect(refused["status"] == "deviceNotFound", "\(refused.jsonString)")
            let message = refused["message"]?.stringValue ?? ""
            #expect(message.contains("sound server at \(server.address)") && message.contains("rear"), "\(message)")
            #expect(beforePlay["state"] == "paused", "the refused playItem does not start by itself: \(beforePlay.jsonString)")
            #expect(reply["status"] == "success", "\(reply.jsonString)")
            #expect(runs.heard.first?.step == 0 && runs.isInOrder, "it plays from the start: \(runs)")
            #expect(heardAt.map { $0 - repliedAt.timeIntervalSince1970 < 1 } == true, "heard within 1 s of the reply")
            recording.stop()
        }

        @Test("an --announcement-role a policy could not match (not a plain word) is refused at start, naming the flag")
        func announcementRoleRefused() async throws {
            for role in ["a b", "", "event;x"] {
                let (status, output) = try await ToolRun.capture(NodeProcess.binaryPath, [
                    "run", "--node-id", "car1", "--broker", "mqtt://127.0.0.1:1", "--announcement-role", role])
                #expect(status != 0 && output.contains("--announcement-role must be a word"), "'\(role)': \(output)")
            }
        }

        @Test("auto (the default) plays through the sound server when one answers, as role music")
        func automaticUsesTheServer() async throws {
            let server = try await PrivateSoundServer()
            defer { server.stop() }
            var urls: (steps: URL?, clip: URL?)
            let rig = try await SoundServerRig.start(server: server, sink: "auto") { try await Self.library(steps: 6, into: &urls, at: $0) }
            defer { rig.stop() }
            let recording = try server.record()
            #expect(try await rig.status("playItem", #""identifier":"\#(rig.identifier(of: try #require(urls.steps)))""#) == "success")
            try await recording.waitFor(seconds: 2.5)
            let streams = try await server.sinkInputs()
            let runs = try recording.wav().toneStepRuns()
            #expect(streams.contains { $0.role == "music" && $0.sink == PrivateSoundServer.sinkName }, "\(streams)")
            #expect(runs.heard.count >= 2 && runs.isInOrder, "heard on the server's default sink: \(runs)")
            #expect(rig.node.log.contains("audio output: the sound server at \(server.address)"), "the log says where it plays")
            recording.stop()
        }

        @Test("an announcement during a call is its own stream, which the cork of the music does not hold: heard while the music stays interrupted, which the call's end gives back")
        func announcementDuringCall() async throws {
            let server = try await PrivateSoundServer()
            defer { server.stop() }
            var urls: (steps: URL?, clip: URL?)
            let rig = try await SoundServerRig.start(server: server) { try await Self.library(steps: 20, into: &urls, at: $0) }
            defer { rig.stop() }
            let recording = try server.record()
            #expect(try await rig.status("playItem", #""identifier":"\#(rig.identifier(of: try #require(urls.steps)))""#) == "success")
            try await recording.waitFor(seconds: recording.seconds + 2.3)
            let call = try await PrivateSoundServer.phoneCall(seconds: 5, in: rig.directory)
            let phone = server.play(call, role: "phone")
            let (held, _) = try await rig.waitForState("interrupted", timeout: 5)

            let announcedAt = Date().timeIntervalSince1970
            let reply = try await rig.send("announce", #""url":"\#(try #require(urls.clip).absoluteString)""#).reply
            #expect(reply["status"] == "success", "\(reply.jsonString)")
            try await rig.waitForEvent("the announcement started") { $0["type"] == "announcementStarted" }
            let streams = try await server.sinkInputs()
            let finished = try await rig.waitForEvent("the announcement finished") { $0["type"] == "announcementFinished" }
            let afterClip = try #require(await rig.nowPlaying)
            let callEnded = try await phone.value
            try await rig.waitForState("playing", timeout: 5)
            try await recording.waitFor(seconds: recording.seconds + 1.5)

            let wav = try recording.wav()
            let from = try #require(recording.second(atWallTime: announcedAt))
            let callEnd = try #require(recording.second(atWallTime: callEnded.timeIntervalSince1970))
            let span = wav.toneSpan(Self.clipFrequency, from: from)
            // Music under the clip, window by window, as the level of the loudest step. Not the step runs, which
            // read the dominant tone from zero crossings: a missed crossing (25 Hz in 20 ms) read the clip's
            // 2050 Hz as 2025 Hz, step 15, in some runs.
            let music = wav.toneStepRuns(to: from).heard.last
            let playingLevel = music.map { wav.toneStepLevel(from: $0.start, length: min(0.5, $0.end - $0.start), steps: 0..<20) } ?? 0
            // A window that holds the clip's start or end has a tone cut short, whose spread reaches the steps.
            let edges = span.map { [$0.start, $0.end] } ?? []
            let windows = stride(from: from, to: callEnd - 0.12, by: 0.02).filter { time in
                edges.allSatisfy { $0 < time - 0.03 || $0 > time + 0.05 }
            }
            let musicDuringCall = windows.compactMap { time -> String? in
                let level = wav.toneStepLevel(from: time, length: 0.02, steps: 0..<20)
                return level > playingLevel / 10 ? String(format: "%.2f s: %.3f", time, level) : nil
            }
            print("announcement during a call: streams \(streams.map { "\($0)\($0.isCorked ? " corked" : "")" }); "
                  + "the clip heard \(span.map { String(format: "%.2f-%.2f s", $0.start, $0.end) } ?? "nowhere") "
                  + String(format: "(call ended at %.2f s); music at %.3f before the call, ", callEnd, playingLevel)
                  + String(format: "at most %.3f during it; ", windows.map { wav.toneStepLevel(from: $0, length: 0.02, steps: 0..<20) }.max() ?? 0)
                  + "\(finished.jsonString)")
            #expect(streams.contains { $0.role == "event" && !$0.isCorked }, "the announcement is not corked: \(streams)")
            #expect(streams.contains { $0.role == "music" && $0.isCorked }, "the music is: \(streams)")
            #expect(finished["reason"] == "finished", "\(finished.jsonString)")
            #expect(span.map { $0.end < callEnd && $0.end - $0.start > 1.5 } == true, "the whole clip is heard during the call")
            #expect(playingLevel > 0.05, "the music was heard before the call: \(String(describing: music)), level \(playingLevel)")
            #expect(musicDuringCall.isEmpty, "no music during the call (a tenth of \(playingLevel) or more): \(musicDuringCall)")
            #expect(afterClip["state"] == "interrupted" && afterClip["elapsedPlaybackTime"] == held["elapsedPlaybackTime"],
                    "the music is still held after the clip: \(afterClip.jsonString)")
            let runs = wav.toneStepRuns(from: callEnd)
            #expect(runs.heard.count >= 1 && runs.isInOrder, "the music goes on after the call: \(runs)")
            recording.stop()
        }
    }
}
