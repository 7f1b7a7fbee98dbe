import CatalogStore
import ContentTree
import Foundation
import MQTTTransport
import MediaJSON
import MediaNodeTesting
import Testing

/// The daemon opens its catalog without the full integrity check and runs it once it is up.
@Suite("A corrupt catalog found after the start, in the real daemon", .serialized)
struct CatalogRebuildTests {
    @Test("the daemon comes up on a damaged cache, then moves it aside, says so, and refills the tree from its library")
    func damagedCacheIsRebuiltWhileRunning() async throws {
        let directory = try AudioFixtures.makeTemporaryDirectory("rebuild")
        defer { try? FileManager.default.removeItem(at: directory) }
        let music = directory.appendingPathComponent("music")
        for track in AudioFixtures.album(count: 2, seconds: 0.3, album: "Kept Album", artist: "Rebuild Band") {
            try await AudioFixtures.writeTone(track, in: music.appendingPathComponent("Rebuild Band/Kept Album"))
        }
        let path = directory.appendingPathComponent("catalog.sqlite").path
        do {
            // Enough content that the damage lands in pages the start does not read.
            let database = try CatalogDatabase(path: path)
            _ = await CatalogRefresher(database: database).refresh(LocalFolderProvider(roots: [music]))
            let bulk = CatalogSource(kind: .json, location: "test://bulk")
            try await database.register(bulk)
            try await database.replaceContent(of: bulk.identifier, with: SyntheticCatalog.snapshot(source: bulk, items: 5000))
            try await database.pool.writeWithoutTransaction { db in _ = try db.checkpoint(.truncate) }
            try database.close()
            let handle = try FileHandle(forUpdating: URL(fileURLWithPath: path))
            let size = try handle.seekToEnd()
            try handle.seek(toOffset: size / 2)
            try handle.write(contentsOf: Data(repeating: 0xFF, count: 16 * 4096))
            try handle.close()
        }

        let broker = try await MosquittoBroker()
        defer { broker.stop() }
        let watcher = try TestMQTTClient(brokerURL: broker.url)
        try await watcher.connect()
        try await watcher.subscribeAndSettle("medianode/rebuild1/#")
        let node = try NodeProcess(arguments: [
            "--broker", broker.url, "--node-id", "rebuild1", "--audio-sink", "fake", "--database", path,
            "--library", music.path,
        ])
        // Under a full parallel suite on two cores the start and the deferred check have taken over 30 s.
        guard (try? await watcher.first(timeout: .seconds(90)) { $0.topic == "medianode/rebuild1/content/tree" }) != nil else {
            Issue.record("the tree root never came; log:\n\(node.log)")
            return
        }
        guard let event = try? await watcher.first(timeout: .seconds(90), where: { message in
            message.topic == "medianode/rebuild1/events"
                && (try? JSONValue(parsing: message.payload))?["kind"] == "database"
        }) else {
            Issue.record("no database event; log:\n\(node.log)")
            return
        }
        let movedTo = try #require(try JSONValue(parsing: event.payload)["movedTo"]?.stringValue)
        #expect(FileManager.default.fileExists(atPath: movedTo))
        #expect(await node.waitForLog("failed its integrity check"), "\(node.log)")
        // Refilled by the rescan: its own report (the library's catalogUpdated) comes after the event, P/info
        // after that counts the library's two tracks, and the albums node (republished, or unchanged if the
        // damage never reached what it shows) lists the album. Neither P/info nor the albums node alone says
        // so: either can still describe the file moved aside.
        let eventIndex = try #require(await watcher.received.firstIndex { $0.payload == event.payload })
        let deadline = ContinuousClock.now + .seconds(30)
        var refilled = false
        while !refilled && ContinuousClock.now < deadline {
            let received = await watcher.received
            let rescanned: Int? = received.dropFirst(eventIndex + 1).firstIndex { message in
                guard message.topic == "medianode/rebuild1/events",
                      let document = try? JSONValue(parsing: message.payload) else { return false }
                return document["type"]?.stringValue == "catalogUpdated" && document["kind"]?.stringValue == "local"
            }
            var counted = false
            if let rescanned {
                counted = received[rescanned...].contains { message in
                    guard message.topic == "medianode/rebuild1/info",
                          let document = try? JSONValue(parsing: message.payload) else { return false }
                    return document["catalog"]?["playables"]?.numberValue == 2
                }
            }
            let albums = received.last { $0.topic == "medianode/rebuild1/content/tree/0/1" }
            let listed = albums.flatMap { try? JSONValue(parsing: $0.payload) }?["children"]?.arrayValue?.first?["title"]
                == "Kept Album"
            refilled = counted && listed
            if !refilled { try await Task.sleep(for: .milliseconds(100)) }
        }
        let seen = await watcher.received.dropFirst(eventIndex).map { "\($0.topic) \(String(decoding: $0.payload.prefix(200), as: UTF8.self))" }
        #expect(refilled, "the rebuilt catalog does not show the library: \(node.log) \(seen)")
        // The file itself, read as another program would, read-only (opening it as a catalog could migrate it
        // or move it aside under the running node): its committed state, which the refill's report follows.
        let count = try await ToolRun.capture("/usr/bin/sqlite3", ["-readonly", path, "SELECT count(*) FROM item WHERE isPlayable"])
        let playables = Int(count.output.trimmingCharacters(in: .whitespacesAndNewlines))
        #expect(playables == 2, "only the library came back, the bulk source is gone; found \(count.output) playables: \(node.log) \(seen)")
        node.signal(SIGTERM)
        #expect(await node.waitForExit() == 0)
        await watcher.disconnect()
    }
}
