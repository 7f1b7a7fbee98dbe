import Foundation
import MediaJSON
import MediaNodeTesting
import Testing

extension RealEngineCommandTests {
    @Suite("Sleep timer: setSleepTimer")
    struct SleepTimerTests {
        @Test("the timer shows in now playing and in P/commands; the music fades out as heard, then pauses; cancel takes it back")
        func fadesAndPauses() async throws {
            let library = try await ToneLibrary("sleep", tones: [(440, 40)])
            defer { library.remove() }
            let node = try await library.start()
            try await node.waitForState("paused")
            try await node.waitUntil(node.topics.commands, "setSleepTimer listed") { $0["setSleepTimer"]?["enabled"] == true }
            #expect(try await node.status("play") == "success")
            try await node.waitForState("playing")
            try await node.waitForAudio(atLeast: 0.6)
            let fullLevel = try node.wav().rms(from: 0.2, length: 0.3)

            // Armed and cancelled: shown, then gone, and the music plays on.
            let asked = Date().timeIntervalSince1970
            #expect(try await node.status("setSleepTimer", #""minutes":30"#) == "success")
            let armed = try await node.waitUntil(node.topics.nowPlaying, "sleepTimer shown") { $0["sleepTimer"] != nil }
            let endsAt = armed["sleepTimer"]?["endsAt"]?.numberValue ?? 0
            #expect(abs(endsAt - (asked + 1800)) < 5, "endsAt \(endsAt), asked at \(asked)")
            #expect(armed["sleepTimer"]?["fadeOut"] == 10)
            #expect(try await node.status("setSleepTimer", #""cancel":true"#) == "success")
            try await node.waitUntil(node.topics.nowPlaying, "sleepTimer gone") { $0["sleepTimer"] == nil }
            #expect(await node.nowPlaying?["state"] == "playing")

            // 6 s, the last 4 of them fading: heard lower before the pause (the output's queue lags the volume
            // element by up to a second or two), then nothing more is rendered.
            let start = node.renderedSeconds()
            #expect(try await node.status("setSleepTimer", #""minutes":0.1,"fadeOut":4"#) == "success")
            let paused = try await node.waitForState("paused", timeout: 10)
            #expect(paused["sleepTimer"] == nil, "the timer is over once it paused")
            let file = try node.wav()
            let fading = stride(from: start + 2, to: file.duration - 0.1, by: 0.05).contains {
                file.rms(from: $0, length: 0.1) < fullLevel * 0.5
            }
            let levels = stride(from: start, to: file.duration - 0.1, by: 0.5).map { (file.rms(from: $0, length: 0.1) * 1000).rounded() / 1000 }
            #expect(fading, "the level drops before the pause: \(levels) against \(fullLevel)")
            let held = node.renderedSeconds()
            try await sleep(0.5)
            #expect(node.renderedSeconds() - held < 0.1, "paused, nothing plays")

            // The next play is at the listener's level again: the fade never touched it.
            #expect(await node.latest(node.topics.volume)?["volume"] == 1)
            #expect(try await node.status("play") == "success")
            let resumed = node.renderedSeconds()
            try await node.waitForAudio(atLeast: resumed + 1.5)
            let again = try node.wav()
            #expect(isNear(again.rms(from: again.duration - 0.4, length: 0.3), fullLevel, within: 0.2),
                    "the level comes back for the next play")
            await node.stop()
        }
    }
}
