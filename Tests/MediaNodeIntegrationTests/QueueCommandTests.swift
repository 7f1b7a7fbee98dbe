import Foundation
import MediaJSON
import MediaNodeTesting
import Testing

extension RealEngineCommandTests {
    @Suite("Queue: repeat, shuffle, stop")
    struct QueueCommandTests {
        @Test("changeRepeatMode and changeShuffleMode adopt the target mode, twice is harmless (S10)")
        func modesAreTargets() async throws {
            let library = try await ToneLibrary("modes", tones: [(440, 10), (550, 10), (660, 10), (770, 10), (880, 10)])
            defer { library.remove() }
            let node = try await library.start()
            try await node.waitForState("paused")
            let original = (0..<5).map { JSONValue.string(library.identifier($0)) }
            #expect(await node.queue?["identifiers"] == .array(original))

            for mode in ["one", "one", "all", "all", "off"] {
                #expect(try await node.status("changeRepeatMode", #""repeatType":"\#(mode)""#) == "success")
                try await node.waitUntil(node.topics.queue, "repeat \(mode)") { $0["repeatMode"] == .string(mode) }
                try await node.waitUntil(node.topics.commands, "currentRepeatType \(mode)") {
                    $0["changeRepeatMode"]?["currentRepeatType"] == .string(mode)
                }
            }

            #expect(try await node.status("changeShuffleMode", #""shuffleType":"items""#) == "success")
            let shuffled = try await node.waitUntil(node.topics.queue, "shuffled") { $0["shuffleMode"] == "items" }
            try await node.waitUntil(node.topics.commands, "currentShuffleType items") {
                $0["changeShuffleMode"]?["currentShuffleType"] == "items"
            }
            let current = await node.nowPlaying?["identifier"]
            // The same target again changes nothing: not a toggle, not a reshuffle.
            #expect(try await node.status("changeShuffleMode", #""shuffleType":"items""#) == "success")
            try await sleep(0.3)
            #expect(await node.queue == shuffled)
            #expect(await node.nowPlaying?["identifier"] == current)

            #expect(try await node.status("changeShuffleMode", #""shuffleType":"off""#) == "success")
            let unshuffled = try await node.waitUntil(node.topics.queue, "in order") { $0["shuffleMode"] == "off" }
            #expect(unshuffled["identifiers"] == .array(original))
            #expect(try await node.status("changeShuffleMode", #""shuffleType":"off""#) == "success")
            try await node.waitUntil(node.topics.commands, "currentShuffleType off") {
                $0["changeShuffleMode"]?["currentShuffleType"] == "off"
            }
            await node.stop()
        }

        @Test("repeat one replays the item")
        func repeatOne() async throws {
            let library = try await ToneLibrary("repeat-one", tones: [(440, 1.5), (880, 1.5)])
            defer { library.remove() }
            let node = try await library.start()
            try await node.waitForState("paused")
            #expect(try await node.status("changeRepeatMode", #""repeatType":"one""#) == "success")
            #expect(try await node.status("play") == "success")
            try await node.waitForAudio(atLeast: 3.6, timeout: 8)
            let timeline = try node.wav().frequencyTimeline(window: 0.2)
            let voiced = timeline.compactMap { $0 }
            #expect(voiced.count >= 15)
            #expect(voiced.allSatisfy { isNear($0, 440, within: 0.05) }, "only the first item's tone: \(voiced)")
            let starts = await node.events().filter {
                $0["type"] == "trackStarted" && $0["identifier"]?.stringValue == library.identifier(0)
            }
            #expect(starts.count >= 2)
            #expect(await node.nowPlaying?["identifier"]?.stringValue == library.identifier(0))
            await node.stop()
        }

        @Test("with repeat off, playing past the end stops: now playing says stopped, play starts over")
        func repeatOffPastTheEnd() async throws {
            let library = try await ToneLibrary("repeat-off", tones: [(440, 1), (880, 1)])
            defer { library.remove() }
            let node = try await library.start()
            try await node.waitForState("paused")
            #expect(try await node.status("play") == "success")
            try await node.waitForState("stopped", timeout: 8)
            #expect(await node.nowPlaying == ["state": "stopped"])
            let file = try node.wav()
            #expect(file.duration > 1.8 && file.duration < 2.3)
            #expect(isNear(file.dominantFrequency(from: 0.2, length: 0.6), 440))
            #expect(isNear(file.dominantFrequency(from: 1.2, length: 0.6), 880))
            #expect(try await node.status("play") == "success", "the items stay: play starts over")
            try await node.waitUntil(node.topics.nowPlaying, "the first item") {
                $0["identifier"]?.stringValue == library.identifier(0) && $0["state"] == "playing"
            }
            await node.stop()
        }

        @Test("stop releases the queue: P/queue empty, now playing stopped, then play has nothing to act on (S8)")
        func stopReleases() async throws {
            let library = try await ToneLibrary("stop", tones: [(440, 10)])
            defer { library.remove() }
            let node = try await library.start()
            try await node.waitForState("paused")
            #expect(try await node.status("play") == "success")
            try await node.waitForAudio(atLeast: 0.5)
            #expect(try await node.status("stop") == "success")
            try await node.waitUntil(node.topics.queue, "an empty queue") { $0["identifiers"] == [] }
            try await node.waitForState("stopped")
            let rendered = node.renderedSeconds()
            let play = try await node.send("play")
            #expect(play["status"] == "noActionableNowPlayingItem")
            #expect(play["code"] == 110)
            try await sleep(0.5)
            #expect(node.renderedSeconds() - rendered < 0.05)
            #expect(try await node.status("like") == "noActionableNowPlayingItem")
            #expect(try await node.status("stop") == "success", "stop with nothing loaded is harmless")
            await node.stop()
        }

        @Test("with nothing loaded the item commands answer noActionableNowPlayingItem and show disabled")
        func nothingLoaded() async throws {
            let library = try await ToneLibrary("empty", tones: [])
            defer { library.remove() }
            let node = try await library.start()
            let commands = try await node.waitUntil(node.topics.commands, "position commands disabled") {
                $0["changePlaybackPosition"]?["enabled"] == false
            }
            for name in ["changePlaybackPosition", "changePlaybackRate", "skipForward", "skipBackward", "seekForward",
                         "seekBackward"] {
                #expect(commands[name]?["enabled"] == false, "\(name) shows disabled")
            }
            for name in ["play", "pause", "togglePlayPause", "nextTrack", "previousTrack"] {
                #expect(commands[name]?["enabled"] == true, "\(name) stays enabled (S2)")
            }
            let requests: [(String, String)] = [
                ("play", ""), ("pause", ""), ("togglePlayPause", ""), ("nextTrack", ""), ("previousTrack", ""),
                ("seekForward", #""type":"beginSeeking""#), ("seekBackward", #""type":"beginSeeking""#),
                ("skipForward", ""), ("skipBackward", #""interval":5"#), ("changePlaybackPosition", #""positionTime":1"#),
                ("changePlaybackRate", #""playbackRate":1.5"#), ("changePlaybackRate", #""playbackRate":"next""#),
            ]
            for (name, fields) in requests {
                let reply = try await node.send(name, fields)
                #expect(reply["status"] == "noActionableNowPlayingItem", "\(name): \(reply.jsonString)")
            }
            await node.stop()
        }
    }
}
