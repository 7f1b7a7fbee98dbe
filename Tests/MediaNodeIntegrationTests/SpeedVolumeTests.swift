import Foundation
import MediaJSON
import MediaNodeTesting
import Testing

extension RealEngineCommandTests {
    /// The speed-dependent gain as a listener hears it in the WAV and a dashboard sees it on `P/volume`.
    @Suite("Speed-dependent volume")
    struct SpeedVolumeTests {
        @Test("with --speed-volume 6, 0, 100 and 300 km/h are heard 0, +6 and +12 dB up, each reached by a ramp without steps")
        func speedsAreHeard() async throws {
            let library = try await ToneLibrary("speed-volume", tones: [(440, 60)])
            defer { library.remove() }
            let node = try await library.start(configure: { $0.speedVolume = 6 })
            defer { Task { await node.stop() } }
            try await node.waitForState("paused")
            // Below full scale, so +12 dB fits under the peak limit: 0.5 cubed is -18 dB.
            #expect(try await node.status("changeVolume", #""volume":0.5"#) == "success")
            #expect(try await node.status("play") == "success")
            try await node.waitForAudio(atLeast: 1.5)
            let base = try node.wav().rms(from: 1.0, length: 0.4)
            #expect(base > 0.01)

            var levels: [Double] = []
            for (speed, gain) in [(100.0, 6.0), (300.0, 12.0), (0.0, 0.0)] {
                try await node.client.publish(node.topics.context, #"{"vehicleSpeed": \#(speed)}"#)
                try await node.waitUntil(node.topics.volume, "speedGainDb \(gain)") { $0["speedGainDb"]?.numberValue == gain }
                let changedAt = node.renderedSeconds()
                try await node.waitForAudio(atLeast: changedAt + 2.5)
                let wav = try node.wav()
                let level = wav.rms(from: changedAt + 2.0, length: 0.4)
                levels.append(ratioInDecibels(level / base))
                let steps = Self.largestStep(in: wav, from: changedAt - 0.3, to: changedAt + 2.2)
                print(String(format: "speed volume: %.0f km/h heard %+.2f dB, largest 20 ms step %.2f dB, ramp %.2f s",
                             speed, levels.last!, steps.largest, steps.rampSeconds))
                #expect(steps.largest < 1, "\(speed) km/h: the largest change between 20 ms windows is \(steps.largest) dB")
                #expect(steps.rampSeconds >= 0.5, "\(speed) km/h: the change took \(steps.rampSeconds) s, not a ramp")
            }
            #expect(abs(levels[0] - 6) < 0.5, "100 km/h: \(levels[0]) dB")
            #expect(abs(levels[1] - 12) < 0.5, "300 km/h (18 dB asked, capped at 12): \(levels[1]) dB")
            #expect(abs(levels[2]) < 0.5, "0 km/h: \(levels[2]) dB")
            #expect(await node.latest(node.topics.volume)?["volume"] == 0.5, "the speed gain never changes volume")
        }

        @Test("a speed of -5, 1e300 or a string, or a context without one, means 0 dB")
        func badSpeeds() async throws {
            let library = try await ToneLibrary("speed-volume-bad", tones: [(440, 10)])
            defer { library.remove() }
            let node = try await library.start(configure: { $0.speedVolume = 6 })
            defer { Task { await node.stop() } }
            try await node.waitForState("paused")
            for payload in [#"{"vehicleSpeed": -5}"#, #"{"vehicleSpeed": 1e300}"#, #"{"vehicleSpeed": "fast"}"#,
                            #"{"networkMetered": false}"#] {
                try await node.client.publish(node.topics.context, #"{"vehicleSpeed": 50}"#)
                try await node.waitUntil(node.topics.volume, "3 dB at 50 km/h") { $0["speedGainDb"]?.numberValue == 3 }
                try await node.client.publish(node.topics.context, payload)
                try await node.waitUntil(node.topics.volume, "0 dB after \(payload)") { $0["speedGainDb"]?.numberValue == 0 }
            }
        }

        /// The largest level change between neighbouring 20 ms windows (dB), and how long the level took
        /// from leaving its old value to reaching its new one (0.5 dB either side).
        static func largestStep(in wav: WAVFile, from start: Double, to end: Double) -> (largest: Double, rampSeconds: Double) {
            let window = 0.02
            let levels = stride(from: max(0, start), to: min(end, wav.duration - window), by: window).map {
                ratioInDecibels(wav.rms(from: $0, length: window))
            }
            guard let first = levels.first, let last = levels.last, levels.count > 1 else { return (0, 0) }
            let largest = zip(levels, levels.dropFirst()).map { abs($1 - $0) }.max() ?? 0
            let leaving = levels.firstIndex { abs($0 - first) > 0.5 }
            let arriving = levels.firstIndex { abs($0 - last) < 0.5 }
            guard let leaving, let arriving, arriving > leaving else { return (largest, 0) }
            return (largest, Double(arriving - leaving) * window)
        }
    }
}

func ratioInDecibels(_ ratio: Double) -> Double { 20 * log10(max(ratio, 1e-9)) }
