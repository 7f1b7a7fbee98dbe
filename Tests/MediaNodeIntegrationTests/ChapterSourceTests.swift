import CatalogStore
import Foundation
import MediaJSON
import MediaNodeTesting
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Chapters from a feed and across a restart, on a real node: a feed and its Podcasting 2.0 chapters served by
/// a real HTTP server, a download, the server gone; the real daemon stopped and started on its catalog file.
@Suite("Chapters from feeds, downloads and a restart", .ownThreads)
struct ChapterSourceTests {
    @Test("a feed's chapters JSON is kept: with the server gone, contentItem lists them and the downloaded episode plays with them, heard")
    func feedChaptersOfflineAndDownloaded() async throws {
        let directory = try AudioFixtures.makeTemporaryDirectory("feed-chapters-node")
        let episode = try await AudioFixtures.writeToneSequence([(440, 3), (660, 4)], named: "episode.ogg", in: directory)
        let server = try await RangeHTTPServer()
        await server.serve("/episode.ogg", file: episode)
        await server.put("/episode.json", body: #"""
            {"version": "1.2.0", "chapters": [{"startTime": 0, "title": "Cold open"}, {"startTime": 3, "title": "The interview"}]}
            """#, contentType: "application/json+chapters")
        await server.put("/feed.xml", body: """
            <rss version="2.0" xmlns:podcast="https://podcastindex.org/namespace/1.0"><channel><title>Chapter Show</title>
            <item><guid>ep1</guid><title>Episode One</title>
            <enclosure url="\(server.url("/episode.ogg").absoluteString)" type="audio/ogg"/>
            <podcast:chapters url="\(server.url("/episode.json").absoluteString)" type="application/json+chapters"/>
            </item></channel></rss>
            """)
        let rig = try await ContentRig.start(
            directory: directory, withLibrary: false, remoteCatalogs: [server.url("/feed.xml").absoluteString])
        let identifier = try await DownloadTests.episodeIdentifier(rig.database)
        let listed = try await rig.request("contentItem", #"{"id":"c1","identifier":"\#(identifier)"}"#, id: "c1")
        #expect(listed["data"]?["chapters"]?[1]?["title"] == "The interview", "\(listed.jsonString)")

        #expect(try await rig.request("download", #"{"id":"d","identifier":"\#(identifier)"}"#, id: "d")["status"] == "success")
        _ = try await rig.running.waitForEvent("downloadFinished", timeout: 20) { $0["type"] == "downloadFinished" }

        // The network is gone: the chapters are in the catalog file, and the local copy plays with them.
        server.stop()
        let offline = try await rig.request("contentItem", #"{"id":"c2","identifier":"\#(identifier)"}"#, id: "c2")
        #expect(offline["data"]?["chapters"] == listed["data"]?["chapters"], "\(offline.jsonString)")
        let play = try await rig.request("playItem", #"{"id":"p","identifier":"\#(identifier)"}"#, id: "p")
        #expect(play["status"] == "success", "\(play.jsonString)")
        let first = try await rig.running.waitUntil(rig.topics.nowPlaying, "the episode playing") {
            $0["state"] == "playing" && $0["identifier"] == .string(identifier)
        }
        #expect(first["chapterNumber"] == 0 && first["chapterCount"] == 2 && first["chapterTitle"] == "Cold open", "\(first.jsonString)")
        let second = try await rig.running.waitUntil(rig.topics.nowPlaying, "the second chapter") { $0["chapterNumber"] == 1 }
        #expect(second["chapterTitle"] == "The interview")
        try await sleep(0.4)
        #expect(isNear(try rig.running.recentTone(length: 0.2), 660), "the second chapter's tone is not heard")
        await rig.stop()
    }

    @Test("the daemon stopped in a chapter and started again shows that chapter with the position, and plays it")
    func resumeRestoresTheChapter() async throws {
        let directory = try AudioFixtures.makeTemporaryDirectory("resume-chapters")
        defer { try? FileManager.default.removeItem(at: directory) }
        let library = directory.appendingPathComponent("music")
        let chapters = [
            ToneChapter("Opening", frequency: 440, seconds: 8), ToneChapter("The Crossing", frequency: 660, seconds: 8),
            ToneChapter("Landfall", frequency: 880, seconds: 8),
        ]
        let book = try await AudioFixtures.writeChapteredBook(chapters, named: "book.mp3", title: "Voyage", in: library)
        let identifier = LibraryCatalog.trackIdentifier(path: book.path, libraries: [library.path])
        let broker = try await MosquittoBroker()
        defer { broker.stop() }
        let prefix = "medianode/chapters"
        let watcher = try TestMQTTClient(brokerURL: broker.url)
        try await watcher.connect()
        try await watcher.subscribeAndSettle("\(prefix)/#")
        defer { Task { await watcher.disconnect() } }
        func start(_ run: Int) async throws -> NodeProcess {
            await watcher.clear()
            let node = try NodeProcess(arguments: [
                "--broker", broker.url, "--node-id", "chapters", "--library", library.path,
                "--database", directory.appendingPathComponent("catalog.sqlite").path,
                "--audio-sink", "wav:" + directory.appendingPathComponent("run\(run).wav").path, "--progress-interval", "1",
            ])
            _ = try await watcher.first(timeout: .seconds(60)) {
                $0.topic == "\(prefix)/status" && String(decoding: $0.payload, as: UTF8.self) == "online"
            }
            return node
        }
        func send(_ command: String, _ fields: String) async throws -> JSONValue {
            let id = "\(command)-\(UUID().uuidString.prefix(8))"
            try await watcher.publish("\(prefix)/cmd/\(command)", #"{"id":"\#(id)",\#(fields)}"#)
            let reply = try await watcher.first(timeout: .seconds(15)) { message in
                message.topic == "\(prefix)/result" && (try? JSONValue(parsing: message.payload))?["id"] == .string(id)
            }
            return try JSONValue(parsing: reply.payload)
        }
        func nowPlaying(_ what: @escaping @Sendable (JSONValue) -> Bool) async throws -> JSONValue {
            let message = try await watcher.first(timeout: .seconds(15)) { message in
                message.topic == "\(prefix)/nowplaying" && (try? JSONValue(parsing: message.payload)).map(what) == true
            }
            return try JSONValue(parsing: message.payload)
        }

        let first = try await start(1)
        // The library is scanned once the node is up.
        _ = try await watcher.first(timeout: .seconds(60)) { message in
            message.topic == "\(prefix)/events" && (try? JSONValue(parsing: message.payload))?["type"] == "catalogUpdated"
        }
        let played = try await send("playItem", #""identifier":"\#(identifier)""#)
        #expect(played["status"] == "success", "\(played.jsonString)")
        #expect(try await send("skipToChapter", #""chapterNumber":1"#)["status"] == "success")
        _ = try await nowPlaying { $0["chapterNumber"] == 1 && $0["playbackRate"] == 1 }
        try await sleep(2)
        first.signal(SIGTERM)
        #expect(await first.waitForExit(timeout: .seconds(15)) != nil)

        let second = try await start(2)
        let restored = try await nowPlaying { $0["identifier"] == .string(identifier) }
        #expect(restored["state"] == "paused", "\(restored.jsonString)")
        #expect(restored["chapterNumber"] == 1 && restored["chapterCount"] == 3 && restored["chapterTitle"] == "The Crossing",
                "\(restored.jsonString)")
        let elapsed = restored["elapsedPlaybackTime"]?.numberValue ?? 0
        #expect(elapsed > 8 && elapsed < 12, "restored at \(elapsed) s")
        #expect(try await send("play", #""x":0"#)["status"] == "success")
        try await sleep(1)
        let heard = try WAVFile(contentsOf: directory.appendingPathComponent("run2.wav"))
        #expect(isNear(heard.dominantFrequency(from: max(0, heard.duration - 0.4), length: 0.3), 660), "the second chapter is not heard")
        second.signal(SIGTERM)
        _ = await second.waitForExit(timeout: .seconds(15))
    }
}
