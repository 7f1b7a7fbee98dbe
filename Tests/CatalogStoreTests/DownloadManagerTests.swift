import CatalogStore
import ContentTree
import Downloads
import Foundation
import HTTPTransfer
import MediaNodeTesting
import Synchronization
import Testing

/// The download manager against real local HTTP servers and a real catalog file: what ends up in the
/// downloads folder, in its rows and on the server's log.
@Suite("Downloads: queue, resume, checks and reconciling after a crash")
struct DownloadManagerTests {
    /// Bytes that differ at every offset, so a wrong resume point shows in the content.
    static func pattern(_ count: Int) -> Data { Data((0..<count).map { UInt8(truncatingIfNeeded: $0 * 7 + $0 / 251) }) }

    /// A scratch folder with a catalog file and a downloads folder.
    struct Scratch {
        let root: URL
        let database: CatalogDatabase
        var downloads: URL { root.appendingPathComponent("downloads") }

        init(_ label: String) throws {
            root = try AudioFixtures.makeTemporaryDirectory(label)
            database = try CatalogDatabase(path: root.appendingPathComponent("catalog.sqlite").path)
        }

        func manager(retryDelay: Duration = .seconds(60)) -> DownloadManager {
            DownloadManager(directory: downloads, store: database, idleTimeout: .seconds(5), retryDelay: retryDelay)
        }

        func remove() {
            try? database.close()
            try? FileManager.default.removeItem(at: root)
        }
    }

    /// Everything a manager reports, gathered by one reader (its stream has one consumer).
    final class EventLog: Sendable {
        final class Events: Sendable { let list = Mutex<[DownloadEvent]>([]) }
        let events = Events()
        let reader: Task<Void, Never>

        init(_ manager: DownloadManager) {
            let events = self.events
            reader = Task { for await event in manager.events { events.list.withLock { $0.append(event) } } }
        }

        deinit { reader.cancel() }

        /// The `index`th event `accept` takes, waiting for it up to `limit`.
        func wait(_ accept: (DownloadEvent) -> Bool, index: Int = 0,
                  within limit: Duration = .seconds(20)) async -> DownloadEvent? {
            let deadline = ContinuousClock.now + limit
            while ContinuousClock.now < deadline {
                let matching = events.list.withLock { $0.filter(accept) }
                if matching.count > index { return matching[index] }
                try? await Task.sleep(for: .milliseconds(20))
            }
            return nil
        }
    }

    static func isEnd(_ event: DownloadEvent) -> Bool {
        switch event {
        case .finished, .failed: true
        case .changed: false
        }
    }

    @Test("a download completes: the copy is byte-identical, in place, recorded as downloaded, nothing left in partial/")
    func downloadCompletes() async throws {
        let scratch = try Scratch("download-completes")
        defer { scratch.remove() }
        let server = try await RangeHTTPServer()
        defer { server.stop() }
        let body = Self.pattern(1_500_000)
        let source = scratch.root.appendingPathComponent("source.mp3")
        try body.write(to: source)
        await server.serve("/episode.mp3", file: source, contentType: "audio/mpeg")

        let manager = scratch.manager()
        let log = EventLog(manager)
        let run = Task { await manager.run() }
        defer { run.cancel() }
        try await manager.download(identifier: "episode:1", url: server.url("/episode.mp3").absoluteString)
        let end = await log.wait(Self.isEnd)
        #expect(end == .finished(identifier: "episode:1", bytes: Int64(body.count)))
        let copy = try #require(manager.localFile(for: "episode:1"))
        #expect(try Data(contentsOf: copy) == body)
        #expect(copy.pathExtension == "mp3")
        #expect(manager.status(of: "episode:1").0 == .downloaded)
        #expect(try FileManager.default.contentsOfDirectory(atPath: manager.partialDirectory.path).isEmpty)
        let rows = try await scratch.database.downloadRecords()
        #expect(rows.map(\.status) == [.downloaded])
        #expect(rows.first?.bytes == Int64(body.count))
    }

    @Test("a download stopped mid-body resumes with a Range request in the next run, and the copy is byte-identical")
    func interruptedDownloadResumes() async throws {
        let scratch = try Scratch("download-resume")
        defer { scratch.remove() }
        let server = try await RangeHTTPServer()
        defer { server.stop() }
        let body = Self.pattern(2_000_000)
        let source = scratch.root.appendingPathComponent("source.ogg")
        try body.write(to: source)
        await server.serve("/long.ogg", file: source)
        await server.throttle("/long.ogg", bytesPerSecond: 400_000)

        let first = scratch.manager()
        let firstRun = Task { await first.run() }
        try await first.download(identifier: "episode:long", url: server.url("/long.ogg").absoluteString)
        let partial = first.partialDirectory.appendingPathComponent(
            DownloadRecord.fileName(identifier: "episode:long", url: server.url("/long.ogg").absoluteString) + ".part")
        let deadline = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < deadline, Self.size(partial) < 300_000 { try await Task.sleep(for: .milliseconds(50)) }
        // The node stops (a restart, or a network loss) mid-body.
        firstRun.cancel()
        await firstRun.value
        let kept = Self.size(partial)
        #expect(kept >= 300_000 && kept < Int64(body.count), "the partial file holds \(kept) bytes")
        #expect(first.localFile(for: "episode:long") == nil)

        await server.throttle("/long.ogg", bytesPerSecond: 0)
        let second = scratch.manager()
        let log = EventLog(second)
        let secondRun = Task { await second.run() }
        defer { secondRun.cancel() }
        let end = await log.wait(Self.isEnd)
        #expect(end == .finished(identifier: "episode:long", bytes: Int64(body.count)))
        let copy = try #require(second.localFile(for: "episode:long"))
        #expect(try Data(contentsOf: copy) == body)
        let ranges = await server.requests().filter { $0.path == "/long.ogg" }.map(\.range)
        #expect(ranges.count == 2)
        #expect(ranges.last == "bytes=\(kept)-", "the server saw \(ranges)")
    }

    @Test("a 404, an HTML page and a short body end failed with a clear message, and no copy is offered")
    func badAnswersFail() async throws {
        let scratch = try Scratch("download-faults")
        defer { scratch.remove() }
        let server = try await FaultHTTPServer()
        defer { server.stop() }
        await server.put("/error.mp3", data: Data("<html><body>Sign in to continue</body></html>".utf8), contentType: "text/html")
        await server.put("/short.mp3", data: Self.pattern(200_000), contentType: "audio/mpeg")
        await server.inject([.truncate], at: "/short.mp3")

        let manager = scratch.manager()
        let log = EventLog(manager)
        let run = Task { await manager.run() }
        defer { run.cancel() }
        let cases: [(String, String)] = [
            ("/missing.mp3", "HTTP 404"), ("/error.mp3", "text/html, not audio"), ("/short.mp3", "truncated: 100000 of 200000"),
        ]
        for (index, (path, expected)) in cases.enumerated() {
            try await manager.download(identifier: "episode:\(path)", url: server.url(path).absoluteString)
            let end = await log.wait(Self.isEnd, index: index)
            guard case let .failed(identifier, message) = end else {
                Issue.record("\(path) ended with \(String(describing: end))")
                continue
            }
            #expect(identifier == "episode:\(path)")
            #expect(message.contains(expected), "\(path): \(message)")
            #expect(manager.status(of: identifier).0 == .failed)
            #expect(manager.localFile(for: identifier) == nil)
        }
        #expect(manager.downloaded().isEmpty)
        // Only the short body's bytes are kept, for a Range request later; the wrong answers left nothing.
        let partials = try FileManager.default.contentsOfDirectory(atPath: manager.partialDirectory.path)
        #expect(partials == [DownloadRecord.fileName(identifier: "episode:/short.mp3", url: server.url("/short.mp3").absoluteString) + ".part"])
        let finished = try FileManager.default.contentsOfDirectory(atPath: scratch.downloads.path).filter { $0 != "partial" }
        #expect(finished.isEmpty)
    }

    @Test("after a crash a copy no finished row names is removed, and a finished row without its file is notDownloaded")
    func restoreReconciles() async throws {
        let scratch = try Scratch("download-restore")
        defer { scratch.remove() }
        let manager = scratch.manager()
        try FileManager.default.createDirectory(at: manager.partialDirectory, withIntermediateDirectories: true)
        let kept = DownloadRecord(identifier: "kept", url: "http://127.0.0.1:9/kept.mp3",
                                  fileName: "00000000000000aa.mp3", status: .downloaded, bytes: 5, finishedAt: Date())
        let lost = DownloadRecord(identifier: "lost", url: "http://127.0.0.1:9/lost.mp3",
                                  fileName: "00000000000000bb.mp3", status: .downloaded, bytes: 5, finishedAt: Date())
        try await scratch.database.saveDownload(kept)
        try await scratch.database.saveDownload(lost)
        try Data("12345".utf8).write(to: scratch.downloads.appendingPathComponent("00000000000000aa.mp3"))
        try Data("stray".utf8).write(to: scratch.downloads.appendingPathComponent("00000000000000cc.mp3"))
        // The listener's own file in the folder is not the manager's to remove.
        try Data("mine".utf8).write(to: scratch.downloads.appendingPathComponent("notes.txt"))
        try Data("part".utf8).write(to: manager.partialDirectory.appendingPathComponent("orphan.mp3.part"))

        try await manager.restore()
        #expect(manager.status(of: "kept").0 == .downloaded)
        #expect(manager.status(of: "lost").0 == .notDownloaded)
        #expect(manager.localFile(for: "lost") == nil)
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.downloads.path).sorted() == ["00000000000000aa.mp3", "notes.txt", "partial"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: manager.partialDirectory.path).isEmpty)
        #expect(try await scratch.database.downloadRecords().map(\.identifier) == ["kept"])
    }

    /// A server with a 1,000,000-byte episode at `/<name>.mp3` for each name.
    static func episodeServer(serving names: [String], in scratch: Scratch) async throws -> RangeHTTPServer {
        let server = try await RangeHTTPServer()
        let source = scratch.root.appendingPathComponent("source.mp3")
        try pattern(1_000_000).write(to: source)
        for name in names { await server.serve("/\(name).mp3", file: source, contentType: "audio/mpeg") }
        return server
    }

    @Test("over the quota: a copy played to the end goes first, then the oldest download; never the loaded item")
    func quotaEvictionOrder() async throws {
        let scratch = try Scratch("download-quota")
        defer { scratch.remove() }
        let server = try await Self.episodeServer(serving: ["a", "b", "c", "d", "e"], in: scratch)
        defer { server.stop() }

        let manager = scratch.manager()
        // Room for three copies; "a" is the loaded item.
        manager.setQuota(3_500_000) { $0 == "a" }
        let log = EventLog(manager)
        let run = Task { await manager.run() }
        defer { run.cancel() }
        for (index, name) in ["a", "b", "c"].enumerated() {
            try await manager.download(identifier: name, url: server.url("/\(name).mp3").absoluteString)
            _ = await log.wait(Self.isEnd, index: index)
        }
        #expect(Set(manager.downloaded().map(\.identifier)) == ["a", "b", "c"])
        // "c" was played to the end: it goes first, although "b" is older.
        try await scratch.database.savePlaybackPosition(PlaybackPosition(elapsed: 60, duration: 60, updatedAt: 0), for: "c")
        try await manager.download(identifier: "d", url: server.url("/d.mp3").absoluteString)
        _ = await log.wait(Self.isEnd, index: 3)
        #expect(Set(manager.downloaded().map(\.identifier)) == ["a", "b", "d"])
        // Then the oldest download, passing over the loaded item.
        try await manager.download(identifier: "e", url: server.url("/e.mp3").absoluteString)
        _ = await log.wait(Self.isEnd, index: 4)
        #expect(Set(manager.downloaded().map(\.identifier)) == ["a", "d", "e"])
        #expect(manager.status(of: "b").0 == .notDownloaded && manager.status(of: "c").0 == .notDownloaded)
        let copies = try FileManager.default.contentsOfDirectory(atPath: scratch.downloads.path).filter { $0 != "partial" }
        #expect(copies.count == 3)
    }

    @Test("restarted with a smaller quota, the manager evicts at start, before any new download finishes")
    func smallerQuotaAtRestart() async throws {
        let scratch = try Scratch("download-quota-restart")
        defer { scratch.remove() }
        let server = try await Self.episodeServer(serving: ["a", "b", "c"], in: scratch)
        defer { server.stop() }
        do {
            let manager = scratch.manager()
            let log = EventLog(manager)
            let run = Task { await manager.run() }
            for (index, name) in ["a", "b", "c"].enumerated() {
                try await manager.download(identifier: name, url: server.url("/\(name).mp3").absoluteString)
                _ = await log.wait(Self.isEnd, index: index)
            }
            #expect(Set(manager.downloaded().map(\.identifier)) == ["a", "b", "c"])
            run.cancel()
            await run.value
        }
        // The next run allows one copy and nothing is downloading: the two oldest go as it starts.
        let manager = scratch.manager()
        manager.setQuota(1_500_000) { _ in false }
        let run = Task { await manager.run() }
        defer { run.cancel() }
        let deadline = ContinuousClock.now + .seconds(10)
        while manager.downloaded().count != 1, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(manager.downloaded().map(\.identifier) == ["c"])
        let copies = try FileManager.default.contentsOfDirectory(atPath: scratch.downloads.path).filter { $0 != "partial" }
        #expect(copies.count == 1)
    }

    @Test("killed after the last byte but before the rename: the 416 to the Range request restarts the download whole")
    func wholePartialStartsOver() async throws {
        let scratch = try Scratch("download-416")
        defer { scratch.remove() }
        let server = try await RangeHTTPServer()
        defer { server.stop() }
        let body = Self.pattern(300_000)
        let source = scratch.root.appendingPathComponent("source.mp3")
        try body.write(to: source)
        await server.serve("/done.mp3", file: source, contentType: "audio/mpeg")
        let url = server.url("/done.mp3").absoluteString
        let name = DownloadRecord.fileName(identifier: "done", url: url)
        try await scratch.database.saveDownload(DownloadRecord(identifier: "done", url: url, fileName: name, status: .downloading))
        let manager = scratch.manager()
        try FileManager.default.createDirectory(at: manager.partialDirectory, withIntermediateDirectories: true)
        try body.write(to: manager.partialDirectory.appendingPathComponent(name + ".part"))

        let log = EventLog(manager)
        let run = Task { await manager.run() }
        defer { run.cancel() }
        let end = await log.wait(Self.isEnd)
        #expect(end == .finished(identifier: "done", bytes: Int64(body.count)))
        #expect(try manager.localFile(for: "done").map { try Data(contentsOf: $0) } == body)
        await #expect(server.requests().map(\.range) == ["bytes=300000-", nil])
    }

    @Test("a full disk ends the download failed with ENOSPC's words, leaving no partial or finished copy",
          .enabled(if: ScratchMount.isAvailable, "\(ScratchMount.unavailableReason)"))
    func fullDiskFails() async throws {
        let scratch = try Scratch("download-enospc")
        defer { scratch.remove() }
        let mount = try ScratchMount(bytes: 1 << 20)
        defer { mount.unmount() }
        let server = try await RangeHTTPServer()
        defer { server.stop() }
        let source = scratch.root.appendingPathComponent("source.mp3")
        try Self.pattern(3_000_000).write(to: source)
        await server.serve("/big.mp3", file: source, contentType: "audio/mpeg")

        let manager = DownloadManager(directory: mount.directory.appendingPathComponent("downloads"), store: scratch.database)
        let log = EventLog(manager)
        let run = Task { await manager.run() }
        defer { run.cancel() }
        try await manager.download(identifier: "big", url: server.url("/big.mp3").absoluteString)
        let end = await log.wait(Self.isEnd)
        guard case let .failed(_, message)? = end else {
            Issue.record("the download ended with \(String(describing: end))")
            return
        }
        #expect(message.contains("No space left on device"), "\(message)")
        #expect(manager.localFile(for: "big") == nil)
        #expect(try FileManager.default.contentsOfDirectory(atPath: manager.partialDirectory.path).isEmpty)
    }

    static func size(_ url: URL) -> Int64 {
        (try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int64) ?? 0
    }
}
