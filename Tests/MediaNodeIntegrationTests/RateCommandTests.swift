import Foundation
import MediaJSON
import MediaNodeTesting
import Testing

extension RealEngineCommandTests {
    @Suite("Rate: changePlaybackRate, the S16 cycle and the S17 rule")
    struct RateCommandTests {
        @Test("at rate 2.0 a 4 s track ends in about 2 s with the same pitch")
        func doubleRate() async throws {
            let library = try await ToneLibrary("rate", tones: [(440, 4)])
            defer { library.remove() }
            let node = try await library.start()
            try await node.waitForState("paused")
            #expect(try await node.status("changePlaybackRate", #""playbackRate":2.0"#) == "success")
            let started = Date()
            #expect(try await node.status("play") == "success")
            let playing = try await node.waitForState("playing")
            #expect(playing["playbackRate"] == 2)
            try await node.waitForState("stopped", timeout: 8)
            let took = Date().timeIntervalSince(started)
            // Under 3.5 s tells double speed from normal speed (4 s) with room for a loaded machine.
            #expect(took > 1.5 && took < 3.5, "a 4 s track at 2.0 took \(took) s")
            let rendered = node.renderedSeconds()
            #expect(rendered > 1.7 && rendered < 2.5, "rendered \(rendered) s")
            #expect(isNear(try node.tone(from: 0.2, length: rendered - 0.4), 440, within: 0.08), "same pitch")
            await node.stop()
        }

        @Test("\"next\" cycles 1.0 -> 1.5 -> 2.0 -> 0.5 -> 1.0; off the head unit's set it is hidden yet explicit rates work")
        func cycleAndS17() async throws {
            let library = try await ToneLibrary("cycle", tones: [(440, 20)])
            defer { library.remove() }
            let node = try await library.start()
            try await node.waitForState("paused")
            let commands = try await node.waitUntil(node.topics.commands, "changePlaybackRate enabled") {
                $0["changePlaybackRate"]?["enabled"] == true
            }
            #expect(commands["changePlaybackRate"]?["supportedPlaybackRates"] == [1.0, 1.5, 2.0, 0.5])

            for expected in [1.5, 2.0, 0.5, 1.0] {
                let reply = try await node.send("changePlaybackRate", #""playbackRate":"next""#)
                #expect(reply["status"] == "success")
                #expect(reply["data"]?["playbackRate"] == .number(expected))
            }

            // S17: an explicit rate outside supportedPlaybackRates hides the command from head units...
            #expect(try await node.status("changePlaybackRate", #""playbackRate":0.75"#) == "success")
            try await node.waitUntil(node.topics.commands, "changePlaybackRate disabled") {
                $0["changePlaybackRate"]?["enabled"] == false
            }
            // ...which cannot step from there, while a companion app's explicit rates still work.
            #expect(try await node.status("changePlaybackRate", #""playbackRate":"next""#) == "commandFailed")
            #expect(try await node.status("changePlaybackRate", #""playbackRate":1.25"#) == "success")
            #expect(try await node.status("changePlaybackRate", #""playbackRate":1.0"#) == "success")
            try await node.waitUntil(node.topics.commands, "changePlaybackRate enabled again") {
                $0["changePlaybackRate"]?["enabled"] == true
            }
            let next = try await node.send("changePlaybackRate", #""playbackRate":"next""#)
            #expect(next["data"]?["playbackRate"] == 1.5)

            // A rate the player does not take.
            #expect(try await node.status("changePlaybackRate", #""playbackRate":3"#) == "commandFailed")
            #expect(try await node.status("changePlaybackRate", #""playbackRate":0.6"#) == "commandFailed")
            #expect(try await node.status("play") == "success")
            try await node.waitUntil(node.topics.nowPlaying, "playing at 1.5") { $0["playbackRate"] == 1.5 }
            await node.stop()
        }
    }
}
