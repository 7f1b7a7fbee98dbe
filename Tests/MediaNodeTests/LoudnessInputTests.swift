import CatalogStore
import Foundation
import MediaJSON
import MediaNodeTesting
import Testing
@testable import MediaNode

/// Bad input to loudness and speed volume: refused or a safe default, each refusal logged once.
@Suite("Loudness and speed volume: bad input")
struct LoudnessInputTests {
    /// An analyser on a fresh catalog file whose measuring child cannot start, and what it logs.
    static func analyserWithoutMeasurer(_ label: String) throws -> (LoudnessAnalyser, LogRecorder, URL) {
        let directory = try AudioFixtures.makeTemporaryDirectory(label)
        let log = LogRecorder()
        let analyser = LoudnessAnalyser(
            database: try CatalogDatabase(path: directory.appendingPathComponent("catalog.sqlite").path),
            measurer: "/nonexistent/medianode", content: nil, downloadsDirectory: nil, started: Latch(),
            logger: log.logger())
        return (analyser, log, directory)
    }

    @Test("a file longer than three hours is refused from its catalog length without decoding, and logged once")
    func overlongFile() async throws {
        let (analyser, log, directory) = try Self.analyserWithoutMeasurer("loudness-long")
        defer { try? FileManager.default.removeItem(at: directory) }
        let results = await analyser.measure([UnmeasuredFile(uri: "file:///music/long.ogg", path: "/music/long.ogg", duration: 36_000)])
        #expect(results.count == 1 && results[0].uri == "file:///music/long.ogg" && results[0].result == StoredMeasurement.none)
        #expect(log.lines(containing: "long.ogg").count == 1, "\(log.messages)")
        #expect(log.lines(containing: "cannot start").isEmpty, "no child was started")
    }

    @Test("a measurer that cannot start blames no file: nothing is kept, so the files are measured later")
    func missingMeasurer() async throws {
        let (analyser, log, directory) = try Self.analyserWithoutMeasurer("loudness-missing")
        defer { try? FileManager.default.removeItem(at: directory) }
        let results = await analyser.measure([UnmeasuredFile(uri: "file:///music/a.ogg", path: "/music/a.ogg", duration: 200)])
        #expect(results.isEmpty)
        #expect(log.lines(containing: "cannot start").count == 1, "\(log.messages)")
    }

    @Test("a speed that is no speed means 0 dB, and is logged once while such readings last")
    func badSpeeds() throws {
        let log = LogRecorder()
        let speed = VehicleSpeedGain(dbPer100: 6, logger: log.logger())
        func gain(_ text: String) throws -> Double? { speed.gainDb(for: try JSONValue(parsing: Array(text.utf8))) }
        #expect(try gain(#"{"vehicleSpeed": 100}"#) == 6)
        for bad in [#"{"vehicleSpeed": -5}"#, #"{"vehicleSpeed": 1e300}"#, #"{"vehicleSpeed": "fast"}"#, #"{"vehicleSpeed": -5}"#] {
            #expect(try gain(bad) == 0, "\(bad)")
        }
        #expect(log.lines(containing: "ignored vehicleSpeed").count == 1, "\(log.messages)")
        #expect(try gain(#"{"vehicleSpeed": 300}"#) == 12, "capped at +12 dB")
        #expect(try gain(#"{"networkMetered": true}"#) == 0, "a context without a speed means 0 dB")
        #expect(try gain(#"{"vehicleSpeed": -1}"#) == 0)
        #expect(log.lines(containing: "ignored vehicleSpeed").count == 2, "a new episode of bad readings is logged again")
        #expect(VehicleSpeedGain(dbPer100: 0, logger: log.logger()).gainDb(for: ["vehicleSpeed": 100]) == nil, "off")
    }
}
