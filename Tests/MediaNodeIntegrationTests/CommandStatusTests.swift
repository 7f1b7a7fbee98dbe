import Foundation
import MediaJSON
import MediaNodeTesting
import Testing

extension RealEngineCommandTests {
    @Suite("Feedback, language options, bad items, a lost output, interruptions")
    struct CommandStatusTests {
        @Test("like, dislike and bookmark set and clear a mark shown as isActive; rating is checked against its range")
        func feedback() async throws {
            let library = try await ToneLibrary("feedback", tones: [(440, 10), (660, 10)])
            defer { library.remove() }
            let node = try await library.start()
            try await node.waitForState("paused")
            for command in ["like", "dislike", "bookmark"] {
                #expect(await node.commands?[command]?["isActive"] == false)
                #expect(try await node.status(command) == "success")
                try await node.waitUntil(node.topics.commands, "\(command) active") { $0[command]?["isActive"] == true }
                #expect(try await node.status(command, #""isNegative":true"#) == "success")
                try await node.waitUntil(node.topics.commands, "\(command) cleared") { $0[command]?["isActive"] == false }
            }
            // A mark belongs to its item: it shows for the item it was set on only.
            #expect(try await node.status("bookmark") == "success")
            try await node.waitUntil(node.topics.commands, "bookmarked") { $0["bookmark"]?["isActive"] == true }
            #expect(try await node.status("nextTrack") == "success")
            try await node.waitUntil(node.topics.commands, "not bookmarked") { $0["bookmark"]?["isActive"] == false }
            #expect(try await node.status("previousTrack") == "success")
            try await node.waitUntil(node.topics.commands, "bookmarked again") { $0["bookmark"]?["isActive"] == true }

            let rating = try #require(await node.commands?["rating"])
            #expect(rating["minimumRating"] == 0)
            #expect(rating["maximumRating"] == 5)
            for value in ["0", "3.5", "5"] {
                #expect(try await node.status("rating", #""rating":\#(value)"#) == "success", "rating \(value)")
            }
            for value in ["-1", "5.5", "99"] {
                #expect(try await node.status("rating", #""rating":\#(value)"#) == "commandFailed", "rating \(value)")
            }
            await node.stop()
        }

        @Test("enable and disable a language option switch the audio stream; an unknown tag is no such language option")
        func languageOptions() async throws {
            let library = try await ToneLibrary.bilingual("languages", seconds: 20)
            defer { library.remove() }
            let node = try await library.start()
            try await node.waitForState("paused")
            #expect(try await node.status("play") == "success")
            try await node.waitForAudio(atLeast: 0.6)
            // Which stream playbin starts with is its choice; English is selected explicitly first.
            #expect(try await node.status("enableLanguageOption", #""languageTag":"en","type":"audible""#) == "success")
            try await node.waitForAudio(atLeast: node.renderedSeconds() + 0.8)
            #expect(isNear(try node.recentTone(), 440), "English is heard")

            #expect(try await node.status("enableLanguageOption", #""languageTag":"de","type":"audible""#) == "success")
            try await node.waitForAudio(atLeast: node.renderedSeconds() + 0.8)
            #expect(isNear(try node.recentTone(), 880), "German is heard")

            #expect(try await node.status("disableLanguageOption", #""languageTag":"de","type":"audible""#) == "success")
            try await node.waitForAudio(atLeast: node.renderedSeconds() + 0.8)
            #expect(isNear(try node.recentTone(), 440), "back to the other stream")

            let unknown = try await node.send("enableLanguageOption", #""languageTag":"fr","type":"audible""#)
            #expect(unknown["status"] == "commandFailed")
            #expect(unknown["message"]?.stringValue?.contains("no such language option") == true)
            let legible = try await node.send("enableLanguageOption", #""languageTag":"en","type":"legible""#)
            #expect(legible["status"] == "commandFailed")
            #expect(legible["message"]?.stringValue?.contains("no such language option") == true)
            await node.stop()
        }

        @Test("a missing and a corrupt file in the queue are skipped, each with a P/events error naming it")
        func badItemsSkipped() async throws {
            let library = try await ToneLibrary("bad-items", tones: [(440, 1.5)])
            defer { library.remove() }
            // Ahead of the tone, two files that are fine when the catalog scans them...
            let corrupt = library.library.appendingPathComponent("00a corrupt.ogg")
            let missing = library.library.appendingPathComponent("00b gone.ogg")
            for (file, frequency) in [(corrupt, 660), (missing, 770)] {
                try await AudioFixtures.writeTone(
                    ToneTrack(fileName: file.lastPathComponent, frequency: frequency, seconds: 1, title: "Soon bad"),
                    in: library.library)
            }
            // ...and then change under it, as a USB stick does: one is overwritten with noise, one deleted.
            let node = try await library.start {
                try Data((0..<20_000).map { _ in UInt8.random(in: 0...255) }).write(to: corrupt)
                try FileManager.default.removeItem(at: missing)
            }
            try await node.waitUntil(node.topics.queue, "three items") { $0["identifiers"]?.arrayValue?.count == 3 }

            let good = library.identifier(0)
            #expect(try await node.status("play") == "success")
            try await node.waitForEvent("the tone starting", timeout: 10) {
                $0["type"] == "trackStarted" && $0["identifier"]?.stringValue == good
            }
            let errors = await node.events().filter { $0["type"] == "error" }
            for bad in [corrupt, missing] {
                #expect(errors.contains { $0["identifier"]?.stringValue == library.identifier(of: bad) },
                        "an error names \(bad.lastPathComponent): \(errors.map(\.jsonString))")
            }
            try await node.waitForState("stopped", timeout: 6)
            let file = try node.wav()
            #expect(file.duration > 1.3 && file.duration < 1.7, "only the good tone was rendered")
            #expect(isNear(file.dominantFrequency(from: 0.2, length: 1), 440))
            await node.stop()
        }

        @Test("a corrupt file right after a playing item is skipped when the gapless switch reaches it")
        func corruptAfterPlayingItem() async throws {
            let library = try await ToneLibrary("bad-next", tones: [(440, 1), (880, 1)])
            defer { library.remove() }
            let corrupt = library.library.appendingPathComponent("01b corrupt.ogg")
            try await AudioFixtures.writeTone(
                ToneTrack(fileName: corrupt.lastPathComponent, frequency: 660, seconds: 1, title: "Soon bad"),
                in: library.library)
            let node = try await library.start {
                try Data((0..<20_000).map { _ in UInt8.random(in: 0...255) }).write(to: corrupt)
            }
            try await node.waitUntil(node.topics.queue, "three items") { $0["identifiers"]?.arrayValue?.count == 3 }
            #expect(try await node.status("play") == "success")
            let last = library.identifier(1)
            // playbin opens the corrupt item during the gapless switch while the first still plays; the
            // first must still end, the bad one be reported, and the last one play.
            let bad = library.identifier(of: corrupt)
            try await node.waitForEvent("the corrupt item reported", timeout: 10) {
                $0["type"] == "error" && $0["identifier"]?.stringValue == bad
            }
            try await node.waitForEvent("the last tone starting", timeout: 10) {
                $0["type"] == "trackStarted" && $0["identifier"]?.stringValue == last
            }
            try await node.waitForAudio(atLeast: 1.8)
            let file = try node.wav()
            #expect(isNear(file.dominantFrequency(from: 0.2, length: 0.6), 440), "the first tone played")
            #expect(isNear(file.dominantFrequency(from: file.duration - 0.7, length: 0.6), 880), "then the last")
            await node.stop()
        }

        @Test("interrupt begin pauses (or ducks) and end resumes only when asked to")
        func interruptions() async throws {
            let library = try await ToneLibrary("interrupt", tones: [(440, 30)])
            defer { library.remove() }
            let node = try await library.start()
            try await node.waitForState("paused")
            #expect(try await node.status("play") == "success")
            try await node.waitForAudio(atLeast: 0.6)
            let fullLevel = try node.wav().rms(from: 0.2, length: 0.3)

            #expect(try await node.status("interrupt", #""type":"begin""#) == "success")
            let interrupted = try await node.waitForState("interrupted")
            #expect(interrupted["playbackRate"] == 0)
            let held = node.renderedSeconds()
            try await sleep(0.5)
            #expect(node.renderedSeconds() - held < 0.1, "interrupted, nothing plays")
            #expect(try await node.status("interrupt", #""type":"end","shouldResume":true"#) == "success")
            try await node.waitForState("playing")
            try await node.waitForAudio(atLeast: held + 0.5)

            #expect(try await node.status("interrupt", #""type":"begin","duck":true"#) == "success")
            let duckStart = node.renderedSeconds()
            try await node.waitForAudio(atLeast: duckStart + 2)
            #expect(await node.nowPlaying?["state"] == "playing", "ducking keeps playing")
            // The volume element sits before playsink's queue, so a change is heard only once the audio
            // already queued behind it has played: allow for that lag.
            let ducked = try node.wav()
            let duckedAt = stride(from: duckStart, to: duckStart + 1.8, by: 0.05).first {
                ducked.rms(from: $0, length: 0.1) < fullLevel * 0.5
            }
            #expect(duckedAt != nil, "the level drops while ducked")
            #expect(try await node.status("interrupt", #""type":"end""#) == "success")
            let restoredStart = node.renderedSeconds()
            try await node.waitForAudio(atLeast: restoredStart + 2)
            let restored = try node.wav()
            #expect(isNear(restored.rms(from: restored.duration - 0.3, length: 0.25), fullLevel, within: 0.2),
                    "the level comes back after the interruption")

            #expect(try await node.status("interrupt", #""type":"begin""#) == "success")
            try await node.waitForState("interrupted")
            #expect(try await node.status("interrupt", #""type":"end","shouldResume":false"#) == "success")
            try await node.waitForState("paused")
            let stays = node.renderedSeconds()
            try await sleep(0.4)
            #expect(node.renderedSeconds() - stays < 0.1, "no resume unless asked")
            await node.stop()
        }

        @Test("an audio output that fails while playing is reported, and play then answers deviceNotFound")
        func lostOutput() async throws {
            let library = try await ToneLibrary("device", tones: [(440, 10), (880, 10)])
            defer { library.remove() }
            // /dev/full opens fine and prerolls, then refuses every write: the output dies once audio flows.
            let node = try await RunningNode.start(
                libraries: [library.library.path],
                sink: "audioconvert ! filesink location=/dev/full buffer-mode=unbuffered sync=true")
            try await node.waitForState("paused")
            #expect(try await node.status("play") == "success")
            let error = try await node.waitForEvent("an output error") { $0["type"] == "error" }
            #expect(error["kind"] == "device")
            let paused = try await node.waitForState("paused")
            #expect(paused["identifier"]?.stringValue == library.identifier(0), "the item is not skipped")
            let play = try await node.send("play")
            #expect(play["status"] == "deviceNotFound", "\(play.jsonString)")
            #expect(play["code"] == 120)
            await node.stop()
        }
    }
}
