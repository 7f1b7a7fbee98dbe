import Foundation
import MediaJSON
import MediaNodeTesting
import Testing

/// The node on a car's sound server (`--audio-sink pulse`): a real PulseAudio (and PipeWire) daemon of the
/// test's own, its null sink's monitor recorded in place of the speakers, and the node as the daemon a car
/// runs. One test at a time: what is heard is timed, and a loaded machine would time itself.
@Suite("The car's sound server", .serialized)
struct SoundServerTests {
    @Test("music is heard within 1 s of playItem's reply, its tone steps in order; its stream is role music, named after the item; positions are where the audio is heard")
    func heardWithRoles() async throws {
        let server = try await PrivateSoundServer()
        defer { server.stop() }
        var steps: URL?
        let rig = try await SoundServerRig.start(server: server) { steps = try await ToneSteps.write(count: 12, named: "steps.ogg", in: $0) }
        defer { rig.stop() }
        let recording = try server.record()
        try await recording.waitFor(seconds: 0.3)

        let (reply, repliedAt) = try await rig.send("playItem", #""identifier":"\#(rig.identifier(of: try #require(steps)))""#)
        #expect(reply["status"] == "success", "\(reply.jsonString)")
        try await recording.waitFor(seconds: recording.seconds + 4.5)
        let streams = try await server.sinkInputs()
        let nowPlaying = try #require(await rig.nowPlaying)

        let runs = try recording.wav().toneStepRuns()
        let first = try #require(runs.heard.first, "nothing heard: \(runs)")
        let heardAt = try #require(recording.wallTime(at: first.start))
        // Where now playing says the audio is, against where the recording has it: at each step's start.
        let boundaries = zip(runs.heard, runs.heard.dropFirst()).filter { $1.step == ($0.step ?? -2) + 1 }.map(\.1)
        let offsets = boundaries.compactMap { run in
            recording.wallTime(at: run.start).flatMap { rig.position(of: nowPlaying, at: $0) }.map { $0 - Double(run.step!) }
        }.sorted()
        let offset = offsets.isEmpty ? Double.nan : offsets[offsets.count / 2]
        print(String(format: "sound server: heard %+.3f s after the reply; steps %@; now playing minus heard position %+.3f s (median of %d step starts)",
                     heardAt - repliedAt.timeIntervalSince1970, runs.heard.compactMap(\.step).map(String.init).joined(separator: ","),
                     offset, offsets.count))
        #expect(heardAt - repliedAt.timeIntervalSince1970 < 1, "heard within 1 s of the reply")
        #expect(runs.isInOrder && runs.heard.count >= 4, "the steps are heard in order: \(runs)")
        #expect(abs(offset) < 0.1, "now playing's position is the one heard: \(offsets)")

        let music = try #require(streams.first { $0.role == "music" }, "no music stream: \(streams)")
        #expect(music.properties["application.name"] == "MediaNode")
        #expect(music.properties["media.name"] == nowPlaying["title"]?.stringValue, "\(music.properties)")
        #expect(nowPlaying["title"]?.stringValue != nil)
        recording.stop()
    }

    @Test("an announcement is a stream of role event, heard over the music the server's policy ducks under it")
    func announcementOverDuckedMusic() async throws {
        let server = try await PrivateSoundServer()
        defer { server.stop() }
        var clip: URL?
        let rig = try await SoundServerRig.start(server: server) { library in
            _ = try await AudioFixtures.writeTone(ToneTrack(fileName: "music.ogg", frequency: 450, seconds: 30, title: "Music"), in: library)
            var track = ToneTrack(fileName: "clip.ogg", frequency: 1500, seconds: 2, title: "Chime")
            track.amplitude = 0.5
            clip = try await AudioFixtures.writeTone(track, in: library.deletingLastPathComponent())
        }
        defer { rig.stop() }
        let recording = try server.record()
        let music = rig.library.appendingPathComponent("music.ogg")
        #expect(try await rig.status("playItem", #""identifier":"\#(rig.identifier(of: music))""#) == "success")
        try await recording.waitFor(seconds: recording.seconds + 1.5)

        let announcedAt = Date().timeIntervalSince1970
        let reply = try await rig.send("announce", #""url":"\#(try #require(clip).absoluteString)""#).reply
        #expect(reply["status"] == "success", "\(reply.jsonString)")
        try await rig.waitForEvent("the clip started") { $0["type"] == "announcementStarted" }
        let streams = try await server.sinkInputs()
        try await rig.waitForEvent("the clip finished") { $0["type"] == "announcementFinished" }
        try await recording.waitFor(seconds: recording.seconds + 1)

        let wav = try recording.wav()
        let from = try #require(recording.second(atWallTime: announcedAt))
        let span = try #require(wav.toneSpan(1500, from: from), "the clip is not heard")
        let before = wav.toneLevel(450, from: from - 0.6, length: 0.5)
        let under = wav.toneLevel(450, from: span.start + 0.5, length: 1)
        let clipLevel = wav.toneLevel(1500, from: span.start + 0.5, length: 1)
        print(String(format: "sound server: music %.4f, under the announcement %.5f (%.1f dB), the announcement %.4f",
                     before, under, 20 * log10(under / before), clipLevel))
        #expect(streams.contains { $0.role == "event" && $0.properties["application.name"] == "MediaNode" }, "\(streams)")
        #expect(streams.contains { $0.role == "music" }, "\(streams)")
        #expect(clipLevel > 0.2, "the announcement is heard at its level")
        // The node's own duck is 14 dB: the rest is the server's policy (module-role-ducking, 20 dB).
        #expect(20 * log10(under / before) < -20, "the music is ducked by the server's policy under the announcement")
        recording.stop()
    }

    @Test("PipeWire (pipewire-pulse and WirePlumber): the music is heard, in role music, named after the item; an announcement in role event over the music deploy/'s WirePlumber script ducks")
    func pipeWire() async throws {
        let server = try await PrivateSoundServer(.pipeWire)
        defer { server.stop() }
        var steps: URL?
        var clip: URL?
        let rig = try await SoundServerRig.start(server: server) { library in
            steps = try await ToneSteps.write(count: 10, named: "steps.ogg", in: library)
            var track = ToneTrack(fileName: "clip.ogg", frequency: 2000, seconds: 2, title: "Chime")
            track.amplitude = 0.5
            clip = try await AudioFixtures.writeTone(track, in: library.deletingLastPathComponent())
        }
        defer { rig.stop() }
        let recording = try server.record()
        let (reply, repliedAt) = try await rig.send("playItem", #""identifier":"\#(rig.identifier(of: try #require(steps)))""#)
        #expect(reply["status"] == "success", "\(reply.jsonString)")
        let title = await rig.nowPlaying?["title"]?.stringValue
        try await recording.waitFor(seconds: 3)
        let runs = try recording.wav().toneStepRuns()

        let announcedAt = Date().timeIntervalSince1970
        #expect(try await rig.status("announce", #""url":"\#(try #require(clip).absoluteString)""#) == "success")
        try await rig.waitForEvent("the announcement started", timeout: 15) { $0["type"] == "announcementStarted" }
        let streams = try await server.sinkInputs()
        try await rig.waitForEvent("the announcement finished", timeout: 15) { $0["type"] == "announcementFinished" }
        try await recording.waitFor(seconds: recording.seconds + 0.5)
        let wav = try recording.wav()
        let from = try #require(recording.second(atWallTime: announcedAt))
        let span = try #require(wav.toneSpan(2000, from: from), "the announcement is not heard")
        let before = wav.toneStepLevel(from: from - 0.6, length: 0.5, steps: 0..<10)
        let under = wav.toneStepLevel(from: span.start + 0.5, length: 1, steps: 0..<10)
        let clipLevel = wav.toneLevel(2000, from: span.start + 0.5, length: 1)
        let heardAt = runs.heard.first.flatMap { recording.wallTime(at: $0.start) }
        print("PipeWire: streams \(streams); heard "
              + (heardAt.map { String(format: "%+.3f s after the reply", $0 - repliedAt.timeIntervalSince1970) } ?? "nothing")
              + "; steps \(runs.heard.compactMap(\.step))"
              + String(format: "; music %.4f, under the announcement %.5f (%.1f dB), the announcement %.4f",
                       before, under, 20 * log10(under / before), clipLevel))
        let music = streams.first { $0.role == "music" }
        #expect(music?.properties["application.name"] == "MediaNode")
        #expect(music?.properties["media.name"] == title && title != nil, "\(String(describing: music?.properties))")
        #expect(streams.contains { $0.role == "event" && $0.properties["media.name"] == "Announcement" }, "\(streams)")
        #expect(runs.heard.count >= 2 && runs.isInOrder, "the steps are heard in order: \(runs)")
        #expect(heardAt.map { $0 - repliedAt.timeIntervalSince1970 < 1 } == true, "heard within 1 s of the reply")
        #expect(clipLevel > 0.2, "the announcement is heard at its level")
        // The node's own duck is 14 dB: the rest is deploy/car-audio's WirePlumber script (20 dB).
        #expect(20 * log10(under / before) < -20, "the music is ducked under the announcement")
        recording.stop()
    }
}
