import Foundation
import MediaJSON
import MediaNodeTesting
import Testing

extension RealEngineCommandTests {
    @Suite("Now playing's extrapolated position against the audio")
    struct ExtrapolationTests {
        /// playItem rounds; `MEDIANODE_EXTRAPOLATION_ROUNDS` runs more.
        static var rounds: Int {
            ProcessInfo.processInfo.environment["MEDIANODE_EXTRAPOLATION_ROUNDS"].flatMap(Int.init) ?? 6
        }

        /// Each item is twelve one-second tones, 400 Hz to 1500 Hz: the tone heard says where in the item the audio
        /// is. Twelve seconds, so one left at 3 s is not within 5 s of its end, and resumes (S31).
        static func part(at seconds: Double) -> Int { Int(seconds) }
        static func frequency(ofPart part: Int) -> Double { Double(400 + 100 * part) }

        @Test("seconds after each playItem reply, now playing's extrapolated position is where the audio is, also when the item resumes where it was left")
        func extrapolationAfterPlayItem() async throws {
            let directory = try AudioFixtures.makeTemporaryDirectory("extrapolation")
            defer { try? FileManager.default.removeItem(at: directory) }
            let music = directory.appendingPathComponent("music")
            try FileManager.default.createDirectory(at: music, withIntermediateDirectories: true)
            var files: [URL] = []
            for index in 0..<Self.rounds {
                files.append(try await AudioFixtures.writeToneSequence(
                    (0..<12).map { (Int(Self.frequency(ofPart: $0)), 1.0) }, named: String(format: "seq-%03d.ogg", index), in: music))
            }
            let node = try await RunningNode.start(library: music, wav: directory.appendingPathComponent("out.wav"))
            try await node.waitForState("paused")
            var errors: [String] = []
            var worst = 0.0
            var left: [String: Double] = [:]
            for round in 1...Self.rounds {
                if await node.nowPlaying?["state"] == "playing" {
                    #expect(try await node.status("pause") == "success")
                    let paused = try await node.waitForState("paused")
                    if let id = paused["identifier"]?.stringValue { left[id] = paused["elapsedPlaybackTime"]?.numberValue }
                }
                // Paused, the WAV stands still: what it gains from here on is the new item's audio. Every third
                // round plays the item the round before left at 3 s again: it resumes there (S31).
                try await Task.sleep(for: .milliseconds(200))
                let file = round % 3 == 0 ? files[round - 2] : files[round - 1]
                let identifier = LibraryCatalog.trackIdentifier(path: file.path, libraries: [music.path])
                let start = left[identifier] ?? 0
                let before = node.renderedSecondsBySize()
                let reply = try await node.send("playItem", #""identifier":"\#(identifier)""#)
                #expect(reply["status"] == "success", "round \(round): \(reply.jsonString)")
                try await Task.sleep(for: .seconds(3))
                let shown = await node.nowPlaying
                let rendered = node.renderedSecondsBySize() - before
                guard shown?["identifier"]?.stringValue == identifier, let predicted = livePosition(shown) else {
                    errors.append("round \(round): now playing shows \(shown?.jsonString ?? "nothing")")
                    continue
                }
                let wav = try node.wav()
                // The last rendered 0.3 s, which end about 0.1 s before the position now.
                let heard = wav.dominantFrequency(from: wav.duration - 0.35, length: 0.3) ?? 0
                let audioAt = start + rendered
                worst = max(worst, abs(predicted - audioAt))
                let tonePart = Self.part(at: predicted - 0.2)
                let nearBoundary = abs((predicted - 0.2) - (predicted - 0.2).rounded()) < 0.2
                if abs(predicted - audioAt) > 0.25 || (!nearBoundary && abs(heard - Self.frequency(ofPart: tonePart)) > 20) {
                    let documents = await node.client.messages(on: node.topics.nowPlaying).suffix(3)
                        .map { String(decoding: $0.payload, as: UTF8.self) }
                    errors.append(String(format: "round %d: predicted %.3f s, audio at %.3f s (from %.3f s), heard %.0f Hz; last documents: ",
                                         round, predicted, audioAt, start, heard) + documents.joined(separator: " "))
                }
            }
            print("extrapolation after playItem: \(Self.rounds - errors.count)/\(Self.rounds) within 0.25 s of the audio, worst \(worst) s")
            #expect(errors.isEmpty, "\(errors.count) of \(Self.rounds): \(errors)")
            await node.stop()
        }
    }
}

extension RunningNode {
    /// Seconds rendered so far, from the WAV's size alone: quick enough to take right beside a reading of
    /// now playing (parsing a long WAV would skew the comparison by itself).
    func renderedSecondsBySize() -> Double {
        guard let wavURL, let size = try? FileManager.default.attributesOfItem(atPath: wavURL.path)[.size] as? Int
        else { return 0 }
        return Double(max(0, size - 44)) / (44_100 * 4)
    }
}
