import CatalogStore
import Foundation
import Logging
import MediaNodeTesting
import ServiceLifecycle
import Testing
@testable import MediaNode

/// The analyser measures the finished copies of episodes, by the URI the queue plays them from.
@Suite("Loudness of downloaded episodes")
struct LoudnessDownloadTests {
    @Test("a downloaded copy is measured, kept by the URI it plays from, and not measured again")
    func downloadedCopy() async throws {
        let directory = try AudioFixtures.makeTemporaryDirectory("loudness-downloads")
        defer { try? FileManager.default.removeItem(at: directory) }
        let folder = directory.appendingPathComponent("downloads")
        let copy = try await AudioFixtures.writeTone(ToneTrack(fileName: "episode.ogg", frequency: 440, seconds: 2, title: "Episode"), in: folder)
        let database = try CatalogDatabase(path: directory.appendingPathComponent("catalog.sqlite").path)
        try await database.saveDownload(DownloadRecord(
            identifier: "episode:1", url: "http://example.invalid/episode.ogg", fileName: "episode.ogg", status: .downloaded))
        try await database.saveDownload(DownloadRecord(
            identifier: "episode:2", url: "http://example.invalid/later.ogg", fileName: "later.ogg", status: .queued))
        let log = LogRecorder()
        let analyser = LoudnessAnalyser(
            database: database, measurer: NodeProcess.binaryPath, content: nil, downloadsDirectory: folder,
            started: Latch(), logger: log.logger())
        #expect(await analyser.measureDownloads() == 1, "\(log.messages)")
        let loudness = try #require(try database.loudness(ofURI: copy.absoluteString))
        #expect(abs((loudness.track ?? 0) + 6.7) < 0.3, "a 0.5-amplitude tone measures about -6.7 LUFS: \(loudness)")
        #expect(await analyser.measureDownloads() == 0, "measured once")
    }

    @Test("the analyser measures once started, and a graceful shutdown stops it promptly")
    func runsAndStops() async throws {
        let directory = try AudioFixtures.makeTemporaryDirectory("loudness-service")
        defer { try? FileManager.default.removeItem(at: directory) }
        let folder = directory.appendingPathComponent("downloads")
        let copy = try await AudioFixtures.writeTone(ToneTrack(fileName: "episode.ogg", frequency: 440, seconds: 2, title: "Episode"), in: folder)
        let database = try CatalogDatabase(path: directory.appendingPathComponent("catalog.sqlite").path)
        try await database.saveDownload(DownloadRecord(
            identifier: "episode:1", url: "http://example.invalid/episode.ogg", fileName: "episode.ogg", status: .downloaded))
        let started = Latch()
        let analyser = LoudnessAnalyser(
            database: database, measurer: NodeProcess.binaryPath, content: nil, downloadsDirectory: folder,
            started: started, logger: Logger(label: "test"))
        let group = ServiceGroup(configuration: .init(services: [analyser], logger: Logger(label: "test")))
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            try await Task.sleep(for: .milliseconds(100))
            #expect(try database.loudness(ofURI: copy.absoluteString) == nil, "nothing before the node's state is out")
            started.open()
            let deadline = ContinuousClock.now + .seconds(20)
            while try database.loudness(ofURI: copy.absoluteString) == nil, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(50))
            }
            #expect(try database.loudness(ofURI: copy.absoluteString) != nil)
            let stopping = ContinuousClock.now
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
            #expect(ContinuousClock.now - stopping < .seconds(2))
        }
    }
}
