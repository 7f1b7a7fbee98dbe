import CatalogStore
import Foundation
import GRDB
import MediaJSON
import MediaNodeTesting
import Testing

/// Downloads through the `download` command on a real node: a real broker, a real catalog file, a real HTTP
/// server for the feed and its audio, and real GStreamer rendering into a WAV file.
@Suite("Downloads on the node: the download command, its events and playing the local copy", .serialized)
struct DownloadTests {
    /// A feed with one 6 s episode at 660 Hz.
    static func podcastServer(in directory: URL) async throws -> (RangeHTTPServer, URL) {
        let episode = try await AudioFixtures.writeToneSequence([(660, 6)], named: "episode.ogg", in: directory)
        let server = try await RangeHTTPServer()
        await server.serve("/episode.ogg", file: episode)
        await server.put("/feed.xml", body: """
            <rss version="2.0"><channel><title>Offline Show</title><item><guid>ep1</guid><title>Episode One</title>\
            <enclosure url="\(server.url("/episode.ogg").absoluteString)" type="audio/ogg"/></item></channel></rss>
            """)
        return (server, episode)
    }

    /// The identifier of the catalog's one item whose audio comes over HTTP.
    static func episodeIdentifier(_ database: CatalogDatabase) async throws -> String {
        try await database.pool.read { db in
            try String.fetchOne(db, sql: "SELECT identifier FROM item WHERE uri LIKE 'http%' AND isPlayable = 1")
        } ?? ""
    }

    /// The first child's `downloadStatus` in a published node.
    static func episodeStatus(_ node: JSONValue?) -> String? {
        guard case let .array(children)? = node?["children"] else { return nil }
        return children.first?["downloadStatus"]?.stringValue
    }

    @Test("a downloaded episode plays with the HTTP server stopped, heard in the WAV; the copy is byte-identical")
    func downloadedEpisodePlaysOffline() async throws {
        let directory = try AudioFixtures.makeTemporaryDirectory("download-offline")
        let (server, episode) = try await Self.podcastServer(in: directory)
        let rig = try await ContentRig.start(
            directory: directory, withLibrary: false, remoteCatalogs: [server.url("/feed.xml").absoluteString])
        let identifier = try await Self.episodeIdentifier(rig.database)
        #expect(!identifier.isEmpty)
        // The feed's page shows the episode as not downloaded, then downloaded once the copy is in place.
        _ = try await rig.waitForNode([0, 0]) { Self.episodeStatus($0) == "notDownloaded" }

        let reply = try await rig.request("download", #"{"id":"d","identifier":"\#(identifier)"}"#, id: "d")
        #expect(reply["status"] == "success", "\(reply.jsonString)")
        let finished = try await rig.running.waitForEvent("downloadFinished", timeout: 20) { $0["type"] == "downloadFinished" }
        let size = try Data(contentsOf: episode).count
        #expect(finished["identifier"] == .string(identifier))
        #expect(finished["bytes"]?.numberValue == Double(size))
        _ = try await rig.waitForNode([0, 0]) { Self.episodeStatus($0) == "downloaded" }
        let copies = try FileManager.default.contentsOfDirectory(at: directory.appendingPathComponent("downloads"),
                                                                 includingPropertiesForKeys: nil)
            .filter { $0.lastPathComponent != "partial" }
        #expect(copies.count == 1)
        #expect(try copies.first.map { try Data(contentsOf: $0) } == Data(contentsOf: episode))

        // No network at all: the server is gone.
        server.stop()
        let play = try await rig.request("playItem", #"{"id":"p","identifier":"\#(identifier)"}"#, id: "p")
        #expect(play["status"] == "success", "\(play.jsonString)")
        try await rig.running.waitForAudio(atLeast: 1.5, timeout: 20)
        #expect(isNear(try rig.running.recentTone(length: 0.5), 660), "the local copy's tone is not heard")
        await rig.stop()
    }

    @Test("download answers: noSuchContent for an unknown item, commandFailed for a local file, isNegative deletes the copy")
    func downloadAnswers() async throws {
        let directory = try AudioFixtures.makeTemporaryDirectory("download-answers")
        let (server, _) = try await Self.podcastServer(in: directory)
        defer { server.stop() }
        let rig = try await ContentRig.start(
            directory: directory, withLibrary: true, remoteCatalogs: [server.url("/feed.xml").absoluteString])
        let identifier = try await Self.episodeIdentifier(rig.database)
        let local = try await rig.database.pool.read { db in
            try String.fetchOne(db, sql: "SELECT identifier FROM item WHERE uri LIKE 'file:%' AND isPlayable = 1")
        } ?? ""

        let unknown = try await rig.request("download", #"{"id":"u","identifier":"no-such-item"}"#, id: "u")
        #expect(unknown["status"] == "noSuchContent")
        let file = try await rig.request("download", #"{"id":"f","identifier":"\#(local)"}"#, id: "f")
        #expect(file["status"] == "commandFailed")
        #expect(file["message"]?.stringValue?.contains("local file") == true, "\(file.jsonString)")
        let missing = try await rig.request("download", #"{"id":"m"}"#, id: "m")
        #expect(missing["status"] == "commandFailed")

        _ = try await rig.request("download", #"{"id":"d","identifier":"\#(identifier)"}"#, id: "d")
        try await rig.running.waitForEvent("downloadFinished", timeout: 20) { $0["type"] == "downloadFinished" }
        #expect(try await rig.database.downloadRecords().map(\.status) == [.downloaded])
        // The root gained a Downloads section after Library, Podcasts, Recently Played and Favorites, listing
        // the copy.
        let section = try await rig.waitForNode([4]) { node in
            guard case let .array(children)? = node?["children"] else { return false }
            return children.count == 1 && children[0]["identifier"] == .string(identifier)
        }
        #expect(section?["item"]?["identifier"] == "section:downloads")
        let deleted = try await rig.request("download", #"{"id":"x","identifier":"\#(identifier)","isNegative":true}"#, id: "x")
        #expect(deleted["status"] == "success")
        let left = try FileManager.default.contentsOfDirectory(atPath: directory.appendingPathComponent("downloads").path)
        #expect(left == ["partial"])
        #expect(try await rig.database.downloadRecords().map(\.status) == [.notDownloaded])
        // With nothing downloaded the section holds a status item (S25), never an empty list.
        _ = try await rig.waitForNode([4]) { node in
            guard case let .array(children)? = node?["children"] else { return false }
            return children.count == 1 && children[0]["identifier"] == "status:noMedia"
        }
        await rig.stop()
    }

    @Test("automatic downloads: the newest 2 episodes of a feed, held back while the network is metered")
    func automaticDownloadsWaitForAnUnmeteredNetwork() async throws {
        let directory = try AudioFixtures.makeTemporaryDirectory("download-auto")
        let server = try await RangeHTTPServer()
        defer { server.stop() }
        var items = ""
        for (index, day) in ["01", "02", "03"].enumerated() {
            let episode = try await AudioFixtures.writeToneSequence([(440 + 220 * index, 2)], named: "ep\(index).ogg", in: directory)
            await server.serve("/ep\(index).ogg", file: episode)
            items += "<item><guid>ep\(index)</guid><title>Episode \(index)</title><pubDate>Mon, \(day) Jun 2026 08:00:00 GMT</pubDate>"
                + "<enclosure url=\"\(server.url("/ep\(index).ogg").absoluteString)\" type=\"audio/ogg\"/></item>"
        }
        await server.put("/feed.xml", body: "<rss version=\"2.0\"><channel><title>Daily</title>\(items)</channel></rss>")
        // The vehicle says the network is metered before the node starts (retained).
        let broker = try await MosquittoBroker()
        let vehicle = try TestMQTTClient(brokerURL: broker.url)
        try await vehicle.connect()
        try await vehicle.publish("medianode/car1/context", #"{"networkMetered":true}"#, retain: true)
        let rig = try await ContentRig.start(
            broker: broker, directory: directory, withLibrary: false,
            remoteCatalogs: [server.url("/feed.xml").absoluteString], autoDownload: 2)

        let deadline = ContinuousClock.now + .seconds(10)
        var rows: [DownloadRecord] = []
        while rows.count < 2, ContinuousClock.now < deadline {
            rows = try await rig.database.downloadRecords()
            try await Task.sleep(for: .milliseconds(100))
        }
        try await Task.sleep(for: .seconds(1))
        rows = try await rig.database.downloadRecords()
        #expect(rows.count == 2 && rows.allSatisfy { $0.status == .queued && $0.isAutomatic }, "\(rows)")
        await #expect(server.requests().filter { $0.path.hasPrefix("/ep") }.isEmpty)

        try await vehicle.publish("medianode/car1/context", #"{"networkMetered":false}"#, retain: true)
        var finished: Set<String> = []
        let end = ContinuousClock.now + .seconds(20)
        while finished.count < 2, ContinuousClock.now < end {
            finished = Set(await rig.running.events().filter { $0["type"] == "downloadFinished" }
                .compactMap { $0["identifier"]?.stringValue })
            try await Task.sleep(for: .milliseconds(100))
        }
        // The two newest by publication date: episodes 2 and 1, never the oldest.
        let fetched = await Set(server.requests().map(\.path).filter { $0.hasPrefix("/ep") })
        #expect(fetched == ["/ep1.ogg", "/ep2.ogg"])
        #expect(finished.count == 2)
        #expect(try await rig.database.downloadRecords().allSatisfy { $0.status == .downloaded })
        await vehicle.disconnect()
        await rig.stop()
    }

    @Test("a feed that drops a downloaded episode: the Downloads section no longer lists it after the refresh")
    func sectionFollowsRefreshes() async throws {
        let directory = try AudioFixtures.makeTemporaryDirectory("download-refresh")
        let (server, _) = try await Self.podcastServer(in: directory)
        defer { server.stop() }
        let feed = server.url("/feed.xml").absoluteString
        let rig = try await ContentRig.start(directory: directory, withLibrary: false, remoteCatalogs: [feed])
        let identifier = try await Self.episodeIdentifier(rig.database)
        _ = try await rig.request("download", #"{"id":"d","identifier":"\#(identifier)"}"#, id: "d")
        try await rig.running.waitForEvent("downloadFinished", timeout: 20) { $0["type"] == "downloadFinished" }
        // Podcasts [0], Recently Played [1], Favorites [2], Downloads [3].
        let listed = try await rig.waitForNode([3], timeout: .seconds(10)) { Self.firstChild($0) == identifier }
        #expect(listed != nil)

        await server.put("/feed.xml", body: """
            <rss version="2.0"><channel><title>Offline Show</title><item><guid>ep2</guid><title>Episode Two</title>\
            <enclosure url="\(server.url("/episode.ogg").absoluteString)" type="audio/ogg"/></item></channel></rss>
            """)
        let provider = try RemoteCatalogProvider(location: feed, fetcher: StandardCatalogFetcher())
        let report = await CatalogRefresher(database: rig.database).refresh(provider)
        let section = try await rig.waitForNode([3], timeout: .seconds(10)) { Self.firstChild($0) == "status:noMedia" }
        #expect(section?["item"]?["identifier"] == "section:downloads", "refresh: \(report)")
        await rig.stop()
    }

    static func firstChild(_ node: JSONValue?) -> String? {
        guard case let .array(children)? = node?["children"] else { return nil }
        return children.first?["identifier"]?.stringValue
    }
}
