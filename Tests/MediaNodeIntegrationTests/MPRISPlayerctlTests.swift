import Foundation
import MPRIS
import MediaJSON
import MediaNodeTesting
import Testing

/// MPRIS driven by playerctl, as a head unit's Linux side or a desktop drives it, on a private dbus-daemon:
/// every call shows on MQTT as the same command would.
@Suite("MPRIS through playerctl", .ownThreads)
struct MPRISPlayerctlTests {
    @Test("play, pause, play-pause, next, previous, stop and position act as the MQTT commands do: the same replies, state and sound")
    func transport() async throws {
        let rig = try await MPRISRig.start("mpris-transport")
        let node = rig.node
        try await node.waitForState("paused")
        #expect(try await rig.playerctl("status") == "Paused", "a prepared queue shows Paused")

        let play = try await rig.mqttReply(to: "play") { try await rig.playerctl("play") }
        #expect(play["status"] == "success" && play["code"] == 0, "\(play.jsonString)")
        try await node.waitForState("playing")
        try await node.waitForAudio(atLeast: 0.5)
        #expect(isNear(try node.recentTone(), 440), "the first track is heard")
        #expect(try await rig.playerctl("status") == "Playing")

        let pause = try await rig.mqttReply(to: "pause") { try await rig.playerctl("pause") }
        #expect(pause["status"] == "success")
        let paused = try await node.waitForState("paused")
        #expect(try await rig.playerctl("status") == "Paused")
        let rendered = node.renderedSeconds()
        try await sleep(0.5)
        #expect(node.renderedSeconds() - rendered < 0.1, "paused through MPRIS, the WAV does not grow")
        #expect(isNear(paused["elapsedPlaybackTime"]?.numberValue, rendered, within: 0.15))

        let next = try await rig.mqttReply(to: "nextTrack") { try await rig.playerctl("next") }
        #expect(next["status"] == "success")
        let second = try await node.waitUntil(node.topics.nowPlaying, "the second item") {
            $0["identifier"]?.stringValue == rig.library.identifier(1)
        }
        #expect(second["playbackQueueIndex"] == 1)
        #expect(try await rig.playerctl("metadata", "xesam:title") == "Tone 660")

        // playerctl position takes seconds; MPRIS's SetPosition carries the current track id and µs.
        let position = try await rig.mqttReply(to: "changePlaybackPosition") { try await rig.playerctl("position", "4") }
        #expect(position["status"] == "success")
        let moved = try await node.waitUntil(node.topics.nowPlaying, "elapsed 4") {
            isNear($0["elapsedPlaybackTime"]?.numberValue, 4, within: 0.02)
        }
        #expect(moved["identifier"]?.stringValue == rig.library.identifier(1))
        let reported = try #require(Double(try await rig.playerctl("position")))
        #expect(isNear(reported, 4, within: 0.02), "playerctl position reads \(reported)")

        let toggle = try await rig.mqttReply(to: "togglePlayPause") { try await rig.playerctl("play-pause") }
        #expect(toggle["status"] == "success")
        try await node.waitForState("playing")
        let forward = try await rig.mqttReply(to: "skipForward") { try await rig.playerctl("position", "3+") }
        #expect(forward["status"] == "success", "a relative position is Seek, skipForward on MQTT: \(forward.jsonString)")
        try await node.waitUntil(node.topics.nowPlaying, "about 7 s in") {
            ($0["elapsedPlaybackTime"]?.numberValue ?? 0) > 6.5
        }
        // More than 3 s in, previous restarts the item, as previousTrack does over MQTT; then back to the first.
        let previous = try await rig.mqttReply(to: "previousTrack") { try await rig.playerctl("previous") }
        #expect(previous["status"] == "success")
        try await node.waitUntil(node.topics.nowPlaying, "the second item from its start") {
            $0["identifier"]?.stringValue == rig.library.identifier(1) && ($0["elapsedPlaybackTime"]?.numberValue ?? 9) < 1
        }
        try await rig.playerctl("previous")
        try await node.waitUntil(node.topics.nowPlaying, "the first item") { $0["identifier"]?.stringValue == rig.library.identifier(0) }

        let stop = try await rig.mqttReply(to: "stop") { try await rig.playerctl("stop") }
        #expect(stop["status"] == "success")
        try await node.waitForState("stopped")
        #expect(try await rig.playerctl("status") == "Stopped")
        #expect(try await rig.property(MPRISNames.trackList, "Tracks") == "(<@ao []>,)", "stop empties the queue")
        await rig.stop()
    }

    @Test("loop, shuffle, volume and rate are written through MPRIS and read back; MQTT shows each change")
    func modesAndVolume() async throws {
        let rig = try await MPRISRig.start("mpris-modes")
        let node = rig.node
        try await node.waitForState("paused")

        let loop = try await rig.mqttReply(to: "changeRepeatMode") { try await rig.playerctl("loop", "Playlist") }
        #expect(loop["status"] == "success")
        try await node.waitUntil(node.topics.queue, "repeat all") { $0["repeatMode"] == "all" }
        #expect(try await rig.playerctl("loop") == "Playlist")
        try await rig.playerctl("loop", "Track")
        try await node.waitUntil(node.topics.queue, "repeat one") { $0["repeatMode"] == "one" }
        #expect(try await rig.playerctl("loop") == "Track")

        let shuffle = try await rig.mqttReply(to: "changeShuffleMode") { try await rig.playerctl("shuffle", "On") }
        #expect(shuffle["status"] == "success")
        try await node.waitUntil(node.topics.queue, "shuffled") { $0["shuffleMode"] == "items" }
        #expect(try await rig.playerctl("shuffle") == "On")
        try await rig.playerctl("shuffle", "Off")
        try await node.waitUntil(node.topics.queue, "in order") { $0["shuffleMode"] == "off" }

        let volume = try await rig.mqttReply(to: "changeVolume") { try await rig.playerctl("volume", "0.4") }
        #expect(volume["status"] == "success")
        try await node.waitUntil(node.topics.volume, "volume 0.4") { isNear($0["volume"]?.numberValue, 0.4, within: 0.001) }
        #expect(isNear(Double(try await rig.playerctl("volume")), 0.4, within: 0.001))
        // MPRIS: a negative volume means 0.
        try await rig.playerctl("volume", "0.5-")
        try await node.waitUntil(node.topics.volume, "volume 0") { $0["volume"] == 0 }

        // Rate, which playerctl does not write: gdbus, as a head unit's own client would.
        try await rig.playerctl("play")
        try await node.waitForState("playing")
        let rate = try await rig.mqttReply(to: "changePlaybackRate") {
            _ = try await rig.gdbus("org.freedesktop.DBus.Properties.Set", MPRISNames.player, "Rate", "<1.5>")
        }
        #expect(rate["status"] == "success")
        try await node.waitUntil(node.topics.nowPlaying, "rate 1.5") { $0["playbackRate"] == 1.5 }
        #expect(try await rig.property(MPRISNames.player, "Rate") == "(<1.5>,)")
        #expect(try await rig.property(MPRISNames.player, "MinimumRate") == "(<0.5>,)")
        #expect(try await rig.property(MPRISNames.player, "MaximumRate") == "(<2.0>,)")
        // A rate of 0 is a pause (MPRIS); a rate the player does not take is refused as changePlaybackRate is.
        _ = try await rig.gdbus("org.freedesktop.DBus.Properties.Set", MPRISNames.player, "Rate", "<0.0>")
        try await node.waitForState("paused")
        let odd = try await rig.gdbus("org.freedesktop.DBus.Properties.Set", MPRISNames.player, "Rate", "<1.1>")
        #expect(odd.output.contains("CommandFailed: playbackRate 1.1 is not one of the player's rates"), "\(odd.output)")
        await rig.stop()
    }

    @Test("metadata shows the catalog's keys, the length, the track id and the cover as a file")
    func metadata() async throws {
        let rig = try await MPRISRig.start("mpris-metadata")
        let node = rig.node
        let nowPlaying = try await node.waitUntil(node.topics.nowPlaying, "the cover in now playing", timeout: 15) {
            $0["state"] == "paused" && $0["artwork"] != nil
        }
        var metadata: [String: String] = [:]
        let deadline = ContinuousClock.now + .seconds(5)
        // Now playing names the picture at once; its bytes follow on its topic, and the file is made of them.
        repeat {
            metadata = Self.parse(try await rig.playerctl("metadata"))
            if metadata["mpris:artUrl"] != nil { break }
            try await Task.sleep(for: .milliseconds(50))
        } while ContinuousClock.now < deadline
        #expect(metadata["xesam:title"] == "Tone 440")
        #expect(metadata["xesam:album"] == nowPlaying["albumTitle"]?.stringValue)
        #expect(metadata["xesam:artist"] == nowPlaying["artist"]?.stringValue)
        #expect(metadata["xesam:trackNumber"] == "1")
        let length = try #require(metadata["mpris:length"].flatMap(Double.init))
        #expect(isNear(length / 1_000_000, nowPlaying["playbackDuration"]?.numberValue ?? 0, within: 0.01))
        #expect(metadata["mpris:trackid"]?.hasPrefix("'/org/medianode/MediaNode/Track/") == true, "\(metadata)")
        #expect(metadata["xesam:url"] == URL(fileURLWithPath: rig.library.files[0].path).absoluteString)
        let art = try #require(metadata["mpris:artUrl"], "no artUrl in \(metadata)")
        let file = try #require(URL(string: art))
        #expect(file.isFileURL)
        let picture = try Data(contentsOf: file)
        let topic = try #require(nowPlaying["artwork"]?["topic"]?.stringValue)
        let published = try #require(await node.client.latest(on: topic))
        #expect([UInt8](picture) == published.payload, "the file holds the picture now playing points at")
        await rig.stop()
    }

    /// `playerctl metadata` prints `player key value` lines.
    static func parse(_ text: String) -> [String: String] {
        var result: [String: String] = [:]
        for line in text.split(separator: "\n") {
            let fields = line.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: true)
            guard fields.count == 3 else { continue }
            result[String(fields[1])] = fields[2].trimmingCharacters(in: .whitespaces)
        }
        return result
    }
}
