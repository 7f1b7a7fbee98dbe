import CatalogStore
import ContentTree
import Foundation
import MediaNodeTesting
import Synchronization
import Testing

/// Refreshes over real HTTP against a server that misbehaves on request.
@Suite("refresh over HTTP against a faulty server")
struct HTTPFaultTests {
    static func feed(_ episodes: [Int], image: String? = nil) -> String {
        let items = episodes.map { number in
            """
            <item><guid>ep\(number)</guid><title>Episode \(number)</title>
            <enclosure url="https://cdn.example.net/\(number).mp3" type="audio/mpeg"/>
            <itunes:duration>12:00</itunes:duration></item>
            """
        }.joined(separator: "\n")
        let picture = image.map { "<itunes:image href=\"\($0)\"/>" } ?? ""
        return """
            <?xml version="1.0" encoding="UTF-8"?>
            <rss version="2.0" xmlns:itunes="http://www.itunes.com/dtds/podcast-1.0.dtd"><channel>
            <title>Fault Radio Show</title>\(picture)
            \(items)
            </channel></rss>
            """
    }

    let fetcher = HTTPCatalogFetcher(
        limits: HTTPFetchLimits(connectTimeout: .seconds(1), idleTimeout: .seconds(1), maxBodyBytes: 1 << 20))

    func provider(_ server: FaultHTTPServer, path: String = "/feed.xml", attempts: Int = 2) -> RemoteCatalogProvider {
        let url = server.url(path)
        return RemoteCatalogProvider(
            source: CatalogSource(kind: .podcast, location: url.absoluteString), url: url, parser: PodcastFeedParser(),
            fetcher: fetcher,
            policy: RefreshPolicy(requestTimeout: .milliseconds(1500), maxAttempts: attempts, maxBodyBytes: 1 << 20),
            sleep: { _ in }, random: { 0.5 })
    }

    func episodes(_ database: CatalogDatabase) async throws -> [String] {
        let shows = try await allChildren(database, of: ContentItem.Section.podcasts)
        guard let show = shows.first else { return [] }
        return try await allChildren(database, of: show.identifier).map(\.title).sorted()
    }

    @Test("stalls, resets, 500s, truncated bodies and a slow drip each fail the refresh and keep the good catalog")
    func faultsKeepGoodData() async throws {
        let server = try await FaultHTTPServer()
        let temp = try TemporaryCatalog("http-faults")
        defer { temp.remove() }
        let database = try temp.open()
        let refresher = CatalogRefresher(database: database)
        await server.put("/feed.xml", body: Self.feed([1, 2]), etag: "\"v1\"")
        guard case .updated = await refresher.refresh(provider(server)) else {
            Issue.record("the first refresh should store the feed")
            return
        }
        #expect(try await episodes(database) == ["Episode 1", "Episode 2"])

        // The server now has new content, but every attempt to fetch it goes wrong.
        await server.put("/feed.xml", body: Self.feed([1, 2, 3]), etag: "\"v2\"")
        let faults: [(String, FaultHTTPServer.Fault)] = [
            // A stall far longer than the bound below: without the request timeout it would take 24 s.
            ("stall", .stall(seconds: 12)), ("reset", .reset), ("500", .status(500)), ("truncated", .truncate),
            ("slow drip", .drip(seconds: 0.3, chunk: 8)),
        ]
        for (name, fault) in faults {
            await server.inject([fault, fault], at: "/feed.xml")
            let started = ContinuousClock.now
            let report = await refresher.refresh(provider(server))
            guard case let .failed(message) = report else {
                Issue.record("\(name): expected a failure, got \(report)")
                continue
            }
            // Two attempts of at most 1.5 s each; the rest is headroom for a loaded machine.
            #expect(ContinuousClock.now - started < .seconds(10), "\(name) took too long: \(message)")
            #expect(try await episodes(database) == ["Episode 1", "Episode 2"], "\(name) changed the catalog")
        }
        let state = try await database.syncState(for: provider(server).source.identifier)
        #expect(state.consecutiveFailures == faults.count && state.etag == "\"v1\"")

        // A fault on the first attempt only is retried within the same refresh.
        await server.inject([.reset], at: "/feed.xml")
        guard case let .updated(diff) = await refresher.refresh(provider(server)) else {
            Issue.record("a clean retry should store the new feed")
            return
        }
        #expect(diff.addedItems == 1 && diff.removedItems == 0)
        #expect(try await episodes(database) == ["Episode 1", "Episode 2", "Episode 3"])
        server.stop()
    }

    @Test("a conditional GET is answered 304 and nothing is rewritten")
    func conditionalGet() async throws {
        let server = try await FaultHTTPServer()
        let temp = try TemporaryCatalog("http-304")
        defer { temp.remove() }
        let database = try temp.open()
        let refresher = CatalogRefresher(database: database)
        let lastModified = "Tue, 02 Jan 2024 10:00:00 GMT"
        await server.put("/feed.xml", body: Self.feed([1, 2]), etag: "\"abc\"", lastModified: lastModified)
        guard case .updated = await refresher.refresh(provider(server)) else {
            Issue.record("the first refresh should store the feed")
            return
        }
        let changes = database.changes()
        let seen = Mutex(0)
        let watcher = Task { for await _ in changes { seen.withLock { $0 += 1 } } }
        #expect(await refresher.refresh(provider(server)) == .unchanged)
        let last = try await #require(server.requests().last)
        #expect(last.headers["If-None-Match"] == "\"abc\"" && last.headers["If-Modified-Since"] == lastModified)
        #expect(last.status == 304)
        try await Task.sleep(for: .milliseconds(100))
        watcher.cancel()
        #expect(seen.withLock { $0 } == 0)
        #expect(try await episodes(database) == ["Episode 1", "Episode 2"])
        server.stop()
    }

    @Test("a changed ETag with new content gives the diff; with the same bytes it changes nothing")
    func changingETags() async throws {
        let server = try await FaultHTTPServer()
        let temp = try TemporaryCatalog("http-etag")
        defer { temp.remove() }
        let database = try temp.open()
        let refresher = CatalogRefresher(database: database)
        await server.put("/feed.xml", body: Self.feed([1, 2]), etag: "\"a\"")
        _ = await refresher.refresh(provider(server))
        await server.put("/feed.xml", body: Self.feed([2, 3, 4]), etag: "\"b\"")
        guard case let .updated(diff) = await refresher.refresh(provider(server)) else {
            Issue.record("expected an update")
            return
        }
        #expect(diff.addedItems == 2 && diff.removedItems == 1 && diff.updatedItems == 0)
        #expect(diff.changedContainers.count == 1 && diff.addedContainers.isEmpty && diff.removedContainers.isEmpty)
        await server.put("/feed.xml", body: Self.feed([2, 3, 4]), etag: "\"c\"")
        #expect(await refresher.refresh(provider(server)) == .unchanged)
        #expect(try await database.syncState(for: provider(server).source.identifier).etag == "\"c\"")
        server.stop()
    }

    @Test("redirects are followed, a body over the cap is refused, and a 404 is not retried")
    func redirectsCapsAndStatuses() async throws {
        let server = try await FaultHTTPServer()
        await server.put("/feed.xml", body: Self.feed([1]))
        await server.inject([.redirect(to: "/feed.xml")], at: "/old.xml")
        let response = try await fetcher.fetch(FetchRequest(url: server.url("/old.xml")))
        #expect(response.status == 200 && String(decoding: response.body, as: UTF8.self).contains("Episode 1"))

        await #expect(throws: RefreshError.bodyTooLarge(Self.feed([1]).utf8.count)) {
            _ = try await fetcher.fetch(FetchRequest(url: server.url("/feed.xml"), maxBodyBytes: 100))
        }
        let missing = try await fetcher.fetch(FetchRequest(url: server.url("/missing.xml")))
        #expect(missing.status == 404)
        let temp = try TemporaryCatalog("http-404")
        defer { temp.remove() }
        let database = try temp.open()
        guard case .failed = await CatalogRefresher(database: database).refresh(provider(server, path: "/missing.xml", attempts: 3)) else {
            Issue.record("a 404 should fail")
            return
        }
        await #expect(server.requests().filter { $0.path == "/missing.xml" }.count == 2)
        server.stop()
    }

    @Test("artwork a feed points at is fetched in the background and stored by content hash")
    func artworkByHash() async throws {
        let server = try await FaultHTTPServer()
        let temp = try TemporaryCatalog("http-artwork")
        defer { temp.remove() }
        let picture = try await AudioFixtures.writeCover(named: "cover.png", width: 64, height: 64, in: temp.directory)
        let bytes = try Data(contentsOf: picture)
        await server.put("/cover.png", data: bytes, contentType: "image/png")
        await server.put("/feed.xml", body: Self.feed([1], image: server.url("/cover.png").absoluteString))
        let database = try temp.open()
        _ = await CatalogRefresher(database: database).refresh(provider(server))
        let show = try #require(try await allChildren(database, of: ContentItem.Section.podcasts).first)
        #expect(show.artworkKey == nil)
        #expect(try await database.pendingArtworkURLs() == [server.url("/cover.png").absoluteString])

        let report = await ArtworkDownloader(database: database, fetcher: fetcher).downloadPending()
        #expect(report.stored == 1 && report.failed.isEmpty)
        let key = SHA256.hex(bytes)
        #expect(try await database.item(identifier: show.identifier)?.artworkKey == key)
        #expect(try await database.artwork(key: key)?.mimeType == "image/png")
        #expect(try await database.pendingArtworkURLs().isEmpty)
        server.stop()
    }
}
