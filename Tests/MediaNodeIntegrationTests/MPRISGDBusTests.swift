import Foundation
import MPRIS
import MediaJSON
import MediaNode
import MediaNodeTesting
import Testing

/// MPRIS through GLib's `gdbus`: the root interface, the track list, errors and signals, on a private bus.
@Suite("MPRIS through gdbus", .ownThreads)
struct MPRISGDBusTests {
    @Test("the root interface names the player; introspection lists the root, Player and TrackList")
    func root() async throws {
        let rig = try await MPRISRig.start("mpris-root", cover: false)
        let root = MPRISNames.root
        #expect(try await rig.property(root, "Identity") == "(<'MediaNode'>,)")
        #expect(try await rig.property(root, "CanQuit") == "(<false>,)")
        #expect(try await rig.property(root, "CanRaise") == "(<false>,)")
        #expect(try await rig.property(root, "HasTrackList") == "(<true>,)")
        #expect(try await rig.property(root, "SupportedUriSchemes") == "(<['file', 'http', 'https']>,)")
        let introspection = try await rig.tools.introspect(rig.busName, path: MPRISNames.objectPath)
        for interface in [MPRISNames.root, MPRISNames.player, MPRISNames.trackList] {
            #expect(introspection.contains("interface \(interface) {"), "\(introspection)")
        }
        #expect(introspection.contains("readwrite d Volume"))
        // What the player can do follows P/commands: a prepared queue plays, pauses, goes on and seeks.
        try await rig.node.waitForState("paused")
        let player = try await rig.gdbus("org.freedesktop.DBus.Properties.GetAll", MPRISNames.player).output
        for can in ["CanGoNext", "CanGoPrevious", "CanPlay", "CanPause", "CanSeek", "CanControl"] {
            #expect(player.contains("'\(can)': <true>"), "\(can): \(player)")
        }
        #expect(try await rig.property(MPRISNames.trackList, "CanEditTracks") == "(<false>,)")
        // Raise and Quit do nothing, as MPRIS says of a player that cannot raise or quit.
        #expect(try await rig.gdbus("\(root).Raise").status == 0)
        #expect(try await rig.gdbus("\(root).Quit").status == 0)
        #expect(try await rig.node.status("pause") == "commandFailed", "the node still answers after Quit")
        await rig.stop()
    }

    @Test("a call the command center refuses returns CommandFailed with the reply's message")
    func refusedCall() async throws {
        let rig = try await MPRISRig.start("mpris-refused", cover: false)
        try await rig.node.waitForState("paused")
        let overMQTT = try await rig.node.send("pause")
        #expect(overMQTT["status"] == "commandFailed")
        let message = try #require(overMQTT["message"]?.stringValue)

        let overDBus = try await rig.gdbus("\(MPRISNames.player).Pause")
        #expect(overDBus.status != 0)
        #expect(overDBus.output.contains("org.mpris.MediaPlayer2.MediaNode.CommandFailed: \(message)"), "\(overDBus.output)")
        let reply = try await rig.mqttReply(to: "pause") { _ = try await rig.gdbus("\(MPRISNames.player).Pause") }
        #expect(reply["status"] == "commandFailed" && reply["message"]?.stringValue == message, "P/result shows it as MQTT would")

        // Beyond the item: refused by the same rule as MQTT's changePlaybackPosition.
        let track = try await rig.property(MPRISNames.trackList, "Tracks")
        let first = try #require(Self.paths(in: track).first)
        let far = try await rig.gdbus("\(MPRISNames.player).SetPosition", first, "999000000")
        #expect(far.output.contains("CommandFailed") && far.output.contains("beyond"), "\(far.output)")
        // A value MPRIS does not define is refused before the command center, with why.
        let bad = try await rig.gdbus("org.freedesktop.DBus.Properties.Set", MPRISNames.player, "LoopStatus", "<'Sometimes'>")
        #expect(bad.output.contains("CommandFailed: LoopStatus must be None, Track or Playlist"), "\(bad.output)")
        // CanEditTracks is false: the track list is not edited through MPRIS.
        let add = try await rig.gdbus("\(MPRISNames.trackList).AddTrack", "file:///a.ogg", first, "false")
        #expect(add.output.contains("CommandFailed: CanEditTracks is false"), "\(add.output)")
        // A wrong type never reaches the node: GDBus answers from the introspection data.
        let wrongType = try await rig.gdbus("org.freedesktop.DBus.Properties.Set", MPRISNames.player, "Volume", "<'loud'>")
        #expect(wrongType.output.contains("InvalidArgs"), "\(wrongType.output)")
        await rig.stop()
    }

    @Test("D-Bus calls are counted in P/metrics by their replies' status, as MQTT commands are")
    func countedInMetrics() async throws {
        let rig = try await MPRISRig.start("mpris-metrics", cover: false) { $0.metrics = MetricsSettings(interval: .seconds(1)) }
        let node = rig.node
        try await node.waitForState("paused")
        let before = try await node.waitUntil(node.topics.metrics, "P/metrics") { $0["commands"] != nil }
        let success = before["commands"]?["success"]?.numberValue ?? 0
        let failed = before["commands"]?["commandFailed"]?.numberValue ?? 0
        #expect(try await rig.gdbus("\(MPRISNames.player).Play").status == 0)
        try await node.waitForState("playing")
        #expect(try await rig.gdbus("\(MPRISNames.player).Play").output.contains("CommandFailed"), "play while playing")
        try await node.waitUntil(node.topics.metrics, "both calls counted", timeout: 10) {
            ($0["commands"]?["success"]?.numberValue ?? 0) >= success + 1
                && ($0["commands"]?["commandFailed"]?.numberValue ?? 0) >= failed + 1
        }
        await rig.stop()
    }

    @Test("Tracks lists the queue in play order; GetTracksMetadata describes each entry with its cover; GoTo plays one")
    func trackList() async throws {
        let rig = try await MPRISRig.start("mpris-tracklist")
        let node = rig.node
        try await node.waitForState("paused")
        let tracks = Self.paths(in: try await rig.property(MPRISNames.trackList, "Tracks"))
        #expect(tracks.count == 3)
        #expect(tracks.map { MPRISTrackID.identifier(of: $0) } == (0..<3).map { rig.library.identifier($0) })

        let all = try await rig.gdbus("\(MPRISNames.trackList).GetTracksMetadata", "[" + tracks.map { "'\($0)'" }.joined(separator: ", ") + ", '/nowhere']")
        #expect(all.status == 0, "\(all.output)")
        for title in ["Tone 440", "Tone 660", "Tone 880"] { #expect(all.output.contains("'xesam:title': <'\(title)'>")) }
        #expect(all.output.components(separatedBy: "'mpris:trackid'").count == 4, "an unknown track id is left out: \(all.output)")
        #expect(all.output.components(separatedBy: "'mpris:artUrl': <'file://").count == 4, "every entry has the cover: \(all.output)")

        let monitor = try await rig.monitor()
        let goTo = try await rig.mqttReply(to: "playItem") { _ = try await rig.gdbus("\(MPRISNames.trackList).GoTo", tracks[2]) }
        #expect(goTo["status"] == "success", "\(goTo.jsonString)")
        let third = try await node.waitUntil(node.topics.nowPlaying, "the third item") {
            $0["identifier"]?.stringValue == rig.library.identifier(2) && $0["state"] == "playing"
        }
        #expect(third["playbackQueueIndex"] == 2)
        _ = try await monitor.first { $0.contains("PropertiesChanged") && $0.contains("'Tone 880'") }
        // playerctl prints an object path in GVariant's quotes.
        #expect(try await rig.playerctl("metadata", "mpris:trackid").trimmingCharacters(in: ["'"]) == tracks[2])

        // A queue edit over MQTT replaces the track list.
        let mark = monitor.count
        #expect(try await node.status("removeFromQueue", #""index":0"#) == "success")
        let replaced = try await monitor.first(after: mark) { $0.contains("TrackListReplaced") }
        #expect(!replaced.text.contains(tracks[0]) && replaced.text.contains(tracks[1]) && replaced.text.contains(tracks[2]))
        monitor.stop()
        await rig.stop()
    }

    @Test("an MQTT command shows on D-Bus within 0.2 s: PropertiesChanged, and Seeked on every seek whoever asked")
    func signalsFollowMQTT() async throws {
        let rig = try await MPRISRig.start("mpris-signals", cover: false)
        let node = rig.node
        try await node.waitForState("paused")
        let monitor = try await rig.monitor()
        let topics = node.topics

        for (command, fields, topic, property) in [
            ("play", "", topics.nowPlaying, "'PlaybackStatus': <'Playing'>"),
            ("changeRepeatMode", #""repeatType":"all""#, topics.queue, "'LoopStatus': <'Playlist'>"),
            ("changeShuffleMode", #""shuffleType":"items""#, topics.queue, "'Shuffle': <true>"),
            ("changeVolume", #""volume":0.25"#, topics.volume, "'Volume': <0.25>"),
            ("changePlaybackRate", #""playbackRate":1.5"#, topics.nowPlaying, "'Rate': <1.5>"),
            ("pause", "", topics.nowPlaying, "'PlaybackStatus': <'Paused'>"),
        ] {
            let mark = monitor.count
            let before = await node.client.messages(on: topic).count
            #expect(try await node.status(command, fields) == "success", "\(command)")
            let signal = try await monitor.first(after: mark) { $0.contains("PropertiesChanged") && $0.contains(property) }
            let messages = await node.client.messages(on: topic)
            let change = try #require(messages.dropFirst(before).last, "\(command) changed \(topic)")
            let gap = signal.arrivedAt - change.receivedAt
            #expect(gap < .milliseconds(200), "\(command): PropertiesChanged \(gap) after the MQTT change")
        }

        // Seeked with the new position in µs, for a seek over MQTT, over D-Bus, and for previous restarting.
        var mark = monitor.count
        #expect(try await node.status("changePlaybackPosition", #""positionTime":5"#) == "success")
        #expect(try await monitor.first(after: mark) { $0.contains("Seeked") }.text.contains("(int64 5000000,)"))
        mark = monitor.count
        _ = try await rig.gdbus("\(MPRISNames.player).Seek", "2000000")
        #expect(try await monitor.first(after: mark) { $0.contains("Seeked") }.text.contains("(int64 7000000,)"))
        mark = monitor.count
        #expect(try await node.status("previousTrack") == "success", "more than 3 s in, previous restarts the item")
        #expect(try await monitor.first(after: mark) { $0.contains("Seeked") }.text.contains("(int64 0,)"))
        #expect(!monitor.lines.contains { $0.text.contains("'Position'") }, "Position is never signalled")
        monitor.stop()
        await rig.stop()
    }

    @Test("OpenUri plays a catalog file as playItem would, a file outside the catalog alone, and refuses other schemes")
    func openUri() async throws {
        let rig = try await MPRISRig.start("mpris-openuri", cover: false)
        let node = rig.node
        try await node.waitForState("paused")
        let second = URL(fileURLWithPath: rig.library.files[1].path).absoluteString
        let open = try await rig.mqttReply(to: "playItem") { _ = try await rig.gdbus("\(MPRISNames.player).OpenUri", second) }
        #expect(open["status"] == "success", "\(open.jsonString)")
        let playing = try await node.waitUntil(node.topics.nowPlaying, "the second file playing") {
            $0["identifier"]?.stringValue == rig.library.identifier(1) && $0["state"] == "playing"
        }
        #expect(playing["playbackQueueCount"] == 3 && playing["playbackQueueIndex"] == 1, "its album is the queue")

        let outside = rig.library.directory.appendingPathComponent("elsewhere")
        try FileManager.default.createDirectory(at: outside, withIntermediateDirectories: true)
        let lone = try await AudioFixtures.writeTone(
            ToneTrack(fileName: "lone tone.ogg", frequency: 1320, seconds: 6, title: "Lone"), in: outside)
        let loneURL = URL(fileURLWithPath: lone.path).absoluteString
        #expect(try await rig.gdbus("\(MPRISNames.player).OpenUri", loneURL).status == 0)
        // Its title is the file's own tag, which the stream reports once it plays.
        let alone = try await node.waitUntil(node.topics.nowPlaying, "the file outside the catalog, with its title") {
            $0["identifier"]?.stringValue == loneURL && $0["state"] == "playing" && $0["title"] == "Lone"
        }
        #expect(alone["playbackQueueCount"] == 1, "\(alone.jsonString)")
        #expect(try await rig.playerctl("metadata", "xesam:title") == "Lone")
        try await node.waitForAudio(atLeast: node.renderedSeconds() + 0.5)
        #expect(isNear(try node.recentTone(), 1320), "the file is heard")

        let refused = try await rig.gdbus("\(MPRISNames.player).OpenUri", "ftp://example.com/a.mp3")
        #expect(refused.output.contains("CommandFailed: 'url' must be a file://, http:// or https:// URL"), "\(refused.output)")
        let missing = try await rig.gdbus("\(MPRISNames.player).OpenUri", "file:///nonexistent/none.ogg")
        #expect(missing.output.contains("CommandFailed"), "\(missing.output)")
        await rig.stop()
    }

    /// The object paths in gdbus's printout of an `ao`.
    static func paths(in text: String) -> [String] {
        text.components(separatedBy: "'").enumerated().compactMap { $0.offset % 2 == 1 && $0.element.hasPrefix("/") ? $0.element : nil }
    }
}
