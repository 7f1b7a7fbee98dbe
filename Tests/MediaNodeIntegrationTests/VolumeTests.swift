import Foundation
import MediaJSON
import MediaNodeTesting
import Testing

extension RealEngineCommandTests {
    /// Volume and mute as a listener hears them in the WAV and a dashboard sees them on `P/volume`.
    @Suite("Volume and mute")
    struct VolumeTests {
        @Test("changeVolume lowers the output by the cube of the level, mute is digital silence, and both show on P/volume")
        func levelAndMute() async throws {
            let library = try await ToneLibrary("volume", tones: [(440, 40)])
            defer { library.remove() }
            let node = try await library.start()
            defer { Task { await node.stop() } }
            try await node.waitForState("paused")
            #expect(await node.latest(node.topics.volume) == ["volume": 1, "isMuted": false, "speedGainDb": 0], "a fresh file starts at 1.0")
            #expect(await node.commands?["changeVolume"] == ["enabled": true, "volume": 1, "volumeStep": 0.05])
            #expect(await node.commands?["mute"] == ["enabled": true, "isMuted": false])

            #expect(try await node.status("play") == "success")
            try await node.waitForAudio(atLeast: 1)
            let full = try node.wav().rms(from: 0.4, length: 0.4)
            #expect(full > 0.1)

            #expect(try await node.status("changeVolume", #""volume":0.5"#) == "success")
            try await node.waitUntil(node.topics.volume, "volume 0.5") { $0["volume"] == 0.5 }
            let changedAt = node.renderedSeconds()
            try await node.waitForAudio(atLeast: changedAt + 2)
            let half = try #require(Self.settledLevel(try node.wav(), after: changedAt, below: full * 0.5))
            #expect(isNear(half, full * 0.125, within: 0.15), "0.5 on the slider is 0.125 in amplitude: \(half) of \(full)")

            #expect(try await node.status("mute", #""isMuted":true"#) == "success")
            try await node.waitUntil(node.topics.volume, "muted") { $0["isMuted"] == true && $0["volume"] == 0.5 }
            let mutedAt = node.renderedSeconds()
            try await node.waitForAudio(atLeast: mutedAt + 2)
            let muted = try node.wav()
            let silent = stride(from: mutedAt, to: mutedAt + 1.6, by: 0.05).first { start in
                muted.channel0(from: start, length: 0.3).allSatisfy { $0 == 0 }
            }
            #expect(silent != nil, "muted output is digital zero")
            #expect(await node.nowPlaying?["state"] == "playing", "muting does not pause")

            #expect(try await node.status("mute", #""isMuted":false"#) == "success")
            let unmutedAt = node.renderedSeconds()
            try await node.waitForAudio(atLeast: unmutedAt + 2)
            let back = try node.wav()
            #expect(isNear(back.rms(from: back.duration - 0.4, length: 0.3), half, within: 0.15),
                    "unmuting returns to the level")
        }

        @Test("up and down step by volumeStep and stop at the ends; a duck never changes volume; bad values change nothing")
        func stepsDuckAndRefusals() async throws {
            let library = try await ToneLibrary("volume-steps", tones: [(440, 20)])
            defer { library.remove() }
            let node = try await library.start()
            defer { Task { await node.stop() } }
            try await node.waitForState("paused")
            #expect(try await node.status("changeVolume", #""volume":"up""#) == "success", "up at 1.0 succeeds")
            #expect(await node.latest(node.topics.volume)?["volume"] == 1)
            #expect(try await node.status("changeVolume", #""volume":"down""#) == "success")
            try await node.waitUntil(node.topics.volume, "0.95") { $0["volume"] == 0.95 }
            #expect(try await node.status("changeVolume", #""volume":0"#) == "success")
            #expect(try await node.status("changeVolume", #""volume":"down""#) == "success", "down at 0 succeeds")
            try await node.waitUntil(node.topics.volume, "0") { $0["volume"] == 0 }
            #expect(try await node.status("changeVolume", #""volume":0.6"#) == "success")
            try await node.waitUntil(node.topics.volume, "0.6") { $0["volume"] == 0.6 }

            for (fields, fragment) in [(#""volume":1.5"#, "within 0...1, got 1.5"), (#""volume":"loud""#, "got \"loud\""),
                                       (#""volume":1e300"#, "got 1e+300"), (#""volume":[1]"#, "got an array"), ("", "missing")] {
                let reply = try await node.send("changeVolume", fields)
                #expect(reply["status"] == "commandFailed", "\(fields)")
                #expect(reply["message"]?.stringValue?.contains(fragment) == true, "\(reply.jsonString)")
            }
            let refusedMute = try await node.send("mute", #""isMuted":"yes""#)
            #expect(refusedMute["message"]?.stringValue?.contains("must be a boolean") == true)
            #expect(await node.latest(node.topics.volume) == ["volume": 0.6, "isMuted": false, "speedGainDb": 0], "refusals change nothing")

            #expect(try await node.status("play") == "success")
            #expect(try await node.status("interrupt", #""type":"begin","duck":true"#) == "success")
            try await sleep(0.3)
            #expect(await node.latest(node.topics.volume) == ["volume": 0.6, "isMuted": false, "speedGainDb": 0], "a duck never changes volume")
            #expect(try await node.status("interrupt", #""type":"end""#) == "success")
        }

        @Test("the level is kept in the catalog file across a restart; mute is not")
        func keptAcrossRestart() async throws {
            let library = try await ToneLibrary("volume-restart", tones: [(440, 10)])
            defer { library.remove() }
            let first = try await library.start(keepingCatalog: true)
            try await first.waitForState("paused")
            #expect(try await first.status("changeVolume", #""volume":0.3"#) == "success")
            #expect(try await first.status("mute", #""isMuted":true"#) == "success")
            try await first.waitUntil(first.topics.volume, "0.3 muted") { $0["volume"] == 0.3 && $0["isMuted"] == true }
            await first.stop()

            // A new broker holds nothing retained: what P/volume shows comes from the node's file.
            let second = try await library.start(keepingCatalog: true)
            defer { Task { await second.stop() } }
            try await second.waitUntil(second.topics.volume, "restored") { $0["volume"] == 0.3 }
            #expect(await second.latest(second.topics.volume) == ["volume": 0.3, "isMuted": false, "speedGainDb": 0])
            #expect(await second.commands?["changeVolume"]?["volume"] == 0.3)
        }

        /// The level of the first 0.2 s window after `start` that is below `threshold` (the change heard,
        /// once the audio already queued behind the volume element has played), measured 0.3 s further on.
        static func settledLevel(_ wav: WAVFile, after start: Double, below threshold: Double) -> Double? {
            guard let heard = stride(from: start, to: start + 1.8, by: 0.05).first(where: {
                wav.rms(from: $0, length: 0.2) < threshold
            }) else { return nil }
            return wav.rms(from: heard + 0.3, length: 0.3)
        }
    }
}
