import CatalogStore
import Foundation
import GRDB
import MediaJSON
import MediaNodeTesting
import Testing

/// The daemon killed with SIGKILL in the middle of a download, then started again.
@Suite("Downloads survive a kill -9")
struct DownloadKillTests {
    @Test("killed mid-download: no copy is listed, the next start resumes with a Range request and the copy is byte-identical")
    func killedMidDownload() async throws {
        let directory = try AudioFixtures.makeTemporaryDirectory("download-kill")
        defer { try? FileManager.default.removeItem(at: directory) }
        let body = Data((0..<3_000_000).map { UInt8(truncatingIfNeeded: $0 * 7 + $0 / 251) })
        let source = directory.appendingPathComponent("source.ogg")
        try body.write(to: source)
        let server = try await RangeHTTPServer()
        defer { server.stop() }
        await server.serve("/long.ogg", file: source)
        await server.throttle("/long.ogg", bytesPerSecond: 300_000)
        await server.put("/feed.xml", body: """
            <rss version="2.0"><channel><title>Long Show</title><item><guid>long</guid><title>Long Episode</title>\
            <enclosure url="\(server.url("/long.ogg").absoluteString)" type="audio/ogg"/></item></channel></rss>
            """)
        let broker = try await MosquittoBroker()
        defer { broker.stop() }
        let database = directory.appendingPathComponent("catalog.sqlite").path
        let downloads = directory.appendingPathComponent("copies")
        let prefix = "medianode/dlkill"
        let arguments = [
            "--broker", broker.url, "--node-id", "dlkill", "--audio-sink", "fake", "--database", database,
            "--catalog", server.url("/feed.xml").absoluteString, "--downloads-dir", downloads.path]
        let watcher = try await ConnectedClient(broker: broker, subscribing: "\(prefix)/#")

        let first = try NodeProcess(arguments: arguments)
        defer { first.signal(SIGKILL) }
        _ = try await watcher.client.first(timeout: .seconds(60)) {
            $0.topic == "\(prefix)/status" && String(decoding: $0.payload, as: UTF8.self) == "online"
        }
        let catalog = try CatalogDatabase(path: database, integrityCheck: .skipped)
        defer { try? catalog.close() }
        var identifier: String?
        let loaded = ContinuousClock.now + .seconds(30)
        while identifier == nil, ContinuousClock.now < loaded {
            identifier = try await catalog.pool.read { db in
                try String.fetchOne(db, sql: "SELECT identifier FROM item WHERE uri LIKE 'http%' AND isPlayable = 1")
            }
            if identifier == nil { try await Task.sleep(for: .milliseconds(100)) }
        }
        let episode = try #require(identifier, "the feed was not loaded")
        try await watcher.client.publish("\(prefix)/cmd/download", #"{"id":"d","identifier":"\#(episode)"}"#)
        let partial = downloads.appendingPathComponent("partial")
        let started = ContinuousClock.now + .seconds(20)
        while Self.bytes(in: partial) < 500_000, ContinuousClock.now < started { try await Task.sleep(for: .milliseconds(50)) }
        first.signal(SIGKILL)
        _ = await first.waitForExit()
        let kept = Self.bytes(in: partial)
        #expect(kept >= 500_000 && kept < Int64(body.count), "the partial file holds \(kept) bytes")
        let listed = try FileManager.default.contentsOfDirectory(atPath: downloads.path).filter { $0 != "partial" }
        #expect(listed.isEmpty, "a copy is in place after the kill: \(listed)")
        #expect(try await catalog.downloadRecords().allSatisfy { $0.status != .downloaded })

        await server.throttle("/long.ogg", bytesPerSecond: 0)
        await watcher.client.clear()
        let second = try NodeProcess(arguments: arguments)
        defer { second.signal(SIGKILL) }
        let finished = try await watcher.client.first(timeout: .seconds(60)) {
            $0.topic == "\(prefix)/events" && (try? JSONValue(parsing: $0.payload))?["type"] == "downloadFinished"
        }
        #expect(try JSONValue(parsing: finished.payload)["bytes"]?.numberValue == Double(body.count))
        let copies = try FileManager.default.contentsOfDirectory(at: downloads, includingPropertiesForKeys: nil)
            .filter { $0.lastPathComponent != "partial" }
        #expect(copies.count == 1)
        #expect(try copies.first.map { try Data(contentsOf: $0) } == body)
        let ranges = await server.requests().filter { $0.path == "/long.ogg" }.compactMap(\.range)
        #expect(ranges.contains { $0.hasPrefix("bytes=") && $0 != "bytes=0-" }, "no resuming Range request: \(ranges)")
        second.signal(SIGTERM)
        _ = await second.waitForExit()
    }

    /// Bytes held by the files of `folder`.
    static func bytes(in folder: URL) -> Int64 {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return names.reduce(0) { total, name in
            total + ((try? FileManager.default.attributesOfItem(atPath: folder.appendingPathComponent(name).path)[.size] as? Int64) ?? 0)
        }
    }
}
