import Foundation
import MediaJSON
import MediaNodeTesting
import Testing

extension RealEngineCommandTests {
    @Suite("Position: changePlaybackPosition, skip, held seeks")
    struct PositionCommandTests {
        @Test("changePlaybackPosition moves the position and the item ends sooner; another identifier is noSuchContent")
        func changePosition() async throws {
            let library = try await ToneLibrary("position", tones: [(440, 8), (660, 8)])
            defer { library.remove() }
            let node = try await library.start()
            try await node.waitForState("paused")
            #expect(try await node.status("play") == "success")
            try await node.waitForAudio(atLeast: 0.3)

            let wrong = try await node.send("changePlaybackPosition", #""positionTime":2,"identifier":"file:/elsewhere.ogg""#)
            #expect(wrong["status"] == "noSuchContent")
            #expect(wrong["code"] == 100)
            #expect(try await node.status("changePlaybackPosition", #""positionTime":99"#) == "commandFailed",
                    "beyond the end")

            let seekedAt = Date()
            #expect(try await node.status(
                "changePlaybackPosition", #""positionTime":6,"identifier":"\#(library.identifier(0))""#) == "success")
            let moved = try await node.waitUntil(node.topics.nowPlaying, "elapsed 6") {
                isNear($0["elapsedPlaybackTime"]?.numberValue, 6, within: 0.05)
            }
            #expect(moved["state"] == "playing")
            // 2 s were left: the next item starts about 2 s later, not 7.
            try await node.waitForEvent("the second item starting", timeout: 6) {
                $0["type"] == "trackStarted" && $0["identifier"]?.stringValue == library.identifier(1)
            }
            let waited = Date().timeIntervalSince(seekedAt)
            #expect(waited > 1.5 && waited < 4, "the rest of the item took \(waited) s")
            await node.stop()
        }

        @Test("skipForward and skipBackward move by their interval, or by the first preferred interval")
        func skip() async throws {
            let library = try await ToneLibrary("skip", tones: [(440, 40)])
            defer { library.remove() }
            let node = try await library.start()
            try await node.waitForState("paused")
            let commands = try await node.waitUntil(node.topics.commands, "skip enabled") {
                $0["skipBackward"]?["enabled"] == true
            }
            #expect(commands["skipForward"]?["preferredIntervals"] == [15])
            #expect(commands["skipBackward"]?["enabled"] == true)

            // Paused, the position stands still, so now playing shows exactly where each skip landed.
            func elapsed(_ expected: Double) async throws {
                try await node.waitUntil(node.topics.nowPlaying, "elapsed \(expected)") {
                    abs(($0["elapsedPlaybackTime"]?.numberValue ?? -1) - expected) < 0.05
                }
            }
            #expect(try await node.status("skipForward") == "success")
            try await elapsed(15)
            #expect(try await node.status("skipForward", #""interval":5"#) == "success")
            try await elapsed(20)
            #expect(try await node.status("skipBackward", #""interval":8"#) == "success")
            try await elapsed(12)
            #expect(try await node.status("skipBackward") == "success")
            try await elapsed(0)  // 12 - 15 stops at the start
            #expect(try await node.status("skipForward", #""interval":-3"#) == "commandFailed")

            // Playing from the new place renders the same tone.
            #expect(try await node.status("skipForward", #""interval":30"#) == "success")
            #expect(try await node.status("play") == "success")
            try await node.waitForAudio(atLeast: 0.6)
            #expect(isNear(try node.recentTone(), 440))
            #expect(livePosition(await node.nowPlaying).map { $0 > 30 } == true)
            await node.stop()
        }

        @Test("a held seekForward advances faster than play, a held seekBackward steps back; endSeeking releases")
        func heldSeeks() async throws {
            let library = try await ToneLibrary("seek", tones: [(440, 40)])
            defer { library.remove() }
            let node = try await library.start()
            try await node.waitForState("paused")
            #expect(try await node.status("play") == "success")
            try await node.waitForAudio(atLeast: 0.3)

            #expect(try await node.status("seekForward", #""type":"beginSeeking""#) == "success")
            let held = try await node.waitUntil(node.topics.nowPlaying, "a fast rate") {
                ($0["playbackRate"]?.numberValue ?? 0) > 1.5
            }
            let start = livePosition(held) ?? 0
            let renderedAtStart = node.renderedSeconds()
            try await sleep(1.5)
            #expect(try await node.status("seekForward", #""type":"endSeeking""#) == "success")
            let released = try await node.waitUntil(node.topics.nowPlaying, "rate 1 again") {
                $0["playbackRate"] == 1
            }
            let advanced = (livePosition(released) ?? 0) - start
            #expect(advanced > 3, "a 1.5 s hold advanced \(advanced) s")
            #expect(isNear(try node.tone(from: renderedAtStart + 0.2, length: 1), 440, within: 0.1),
                    "fast-forward keeps the pitch")

            #expect(try await node.status("changePlaybackPosition", #""positionTime":25"#) == "success")
            try await sleep(0.3)
            #expect(try await node.status("seekBackward", #""type":"beginSeeking""#) == "success")
            try await sleep(1.2)
            #expect(try await node.status("seekBackward", #""type":"endSeeking""#) == "success")
            try await sleep(0.2)
            let back = livePosition(await node.nowPlaying) ?? 99
            #expect(back < 18, "a 1.2 s rewind from about 25 s is at \(back) s")
            #expect(try await node.status("seekBackward", #""type":"endSeeking""#) == "success", "harmless when none is held")
            await node.stop()
        }
    }
}
