import Foundation
import MediaJSON
import MediaNodeTesting
import Testing

/// The parent of the suites that play real audio through a node. They run beside each other and beside the
/// rest of the suite, each test on threads of its own (`.ownThreads`), so that its sleeps and waits keep
/// time however busy the shared pool is; their timing checks allow for a loaded two-core machine.
@Suite("Commands on a real GStreamer engine", .ownThreads)
struct RealEngineCommandTests {}

extension RealEngineCommandTests {
    @Suite("Transport: play, pause, toggle, next, previous")
    struct TransportEffectTests {
        @Test("play renders the track's tone, pause stops the WAV growing, and the S5 rule answers commandFailed")
        func playAndPause() async throws {
            let library = try await ToneLibrary("play", tones: [(440, 8), (880, 8)])
            defer { library.remove() }
            let node = try await library.start()
            try await node.waitForState("paused")
            #expect(node.renderedSeconds() == 0, "a prepared queue plays nothing")
            #expect(try await node.status("pause") == "commandFailed")

            let asked = Date()
            #expect(try await node.status("play") == "success")
            try await node.waitForState("playing")
            try await sleep(2)
            #expect(try await node.status("play") == "commandFailed")
            let pause = try await node.send("pause")
            #expect(pause["status"] == "success")
            #expect(pause["code"] == 0)
            // Played between the play request and the pause reply: about 2 s, more on a loaded machine.
            let wall = Date().timeIntervalSince(asked)
            let rendered = node.renderedSeconds()
            #expect(rendered > 1.6 && rendered < wall + 0.3, "rendered \(rendered) s in \(wall) s between play and pause")
            #expect(isNear(try node.tone(from: 0.1, length: rendered - 0.2), 440), "the first track's tone")

            let paused = try await node.waitForState("paused")
            #expect(paused["playbackRate"] == 0)
            #expect(isNear(paused["elapsedPlaybackTime"]?.numberValue, rendered, within: 0.15))
            #expect(try await node.status("pause") == "commandFailed")
            try await sleep(1)
            #expect(node.renderedSeconds() - rendered < 0.1, "paused, the WAV does not grow")

            // togglePlayPause both ways (S9).
            #expect(try await node.status("togglePlayPause") == "success")
            try await node.waitForState("playing")
            try await node.waitForAudio(atLeast: rendered + 0.5)
            #expect(try await node.status("togglePlayPause") == "success")
            try await node.waitForState("paused")
            let afterToggle = node.renderedSeconds()
            try await sleep(0.5)
            #expect(node.renderedSeconds() - afterToggle < 0.1)
            await node.stop()
        }

        @Test("nextTrack and previousTrack change the tone; previousTrack more than 3 s in restarts the item")
        func nextAndPrevious() async throws {
            let library = try await ToneLibrary("next", tones: [(440, 10), (660, 10), (880, 10)])
            defer { library.remove() }
            let node = try await library.start()
            try await node.waitForState("paused")
            #expect(try await node.status("play") == "success")
            try await node.waitForAudio(atLeast: 0.5)
            #expect(isNear(try node.recentTone(), 440))

            #expect(try await node.status("nextTrack") == "success")
            let second = try await node.waitUntil(node.topics.nowPlaying, "the second item") {
                $0["identifier"]?.stringValue == library.identifier(1)
            }
            #expect(second["state"] == "playing")
            #expect(second["playbackQueueIndex"] == 1)
            try await node.waitForAudio(atLeast: node.renderedSeconds() + 0.8)
            #expect(isNear(try node.recentTone(), 660), "next changes the tone")

            // Less than 3 s in: previous moves to the item before.
            #expect(try await node.status("previousTrack") == "success")
            try await node.waitUntil(node.topics.nowPlaying, "the first item again") {
                $0["identifier"]?.stringValue == library.identifier(0)
            }
            try await node.waitForAudio(atLeast: node.renderedSeconds() + 0.8)
            #expect(isNear(try node.recentTone(), 440), "previous changes the tone back")

            // More than 3 s in: previous restarts the same item.
            try await node.waitForPosition(atLeast: 3.5)
            #expect(try await node.status("previousTrack") == "success")
            let restarted = try await node.waitUntil(node.topics.nowPlaying, "a restart") {
                ($0["elapsedPlaybackTime"]?.numberValue ?? 99) < 0.5
            }
            #expect(restarted["identifier"]?.stringValue == library.identifier(0))
            #expect(restarted["state"] == "playing")
            await node.stop()
        }
    }
}
