import CatalogStore
import ContentTree
import Foundation
import MediaNodeTesting
import Testing

/// Chapters of podcast episodes: Podcasting 2.0 JSON documents served by a real HTTP server and fetched with
/// the feed, and Podlove Simple Chapters inline, into a real catalog file.
@Suite("chapters of podcast feeds")
struct FeedChapterTests {
    /// One episode: its number, the `podcast:chapters` path on the server (if any), Podlove chapters inline.
    struct Episode {
        var number: Int
        var chaptersPath: String?
        var podlove: [(start: String, title: String)] = []
        var duration = "10:00"
    }

    static func feed(_ episodes: [Episode], server: FaultHTTPServer) -> String {
        let items = episodes.map { episode -> String in
            let chapters = episode.chaptersPath.map {
                "<podcast:chapters url=\"\(server.url($0).absoluteString)\" type=\"application/json+chapters\"/>"
            } ?? ""
            let podlove: String = episode.podlove.isEmpty ? "" : "<psc:chapters version=\"1.2\">"
                + episode.podlove.map { "<psc:chapter start=\"\($0.start)\" title=\"\($0.title)\"/>" }.joined() + "</psc:chapters>"
            return """
                <item><guid>ep\(episode.number)</guid><title>Episode \(episode.number)</title>
                <enclosure url="https://cdn.example.net/\(episode.number).mp3" type="audio/mpeg"/>
                <itunes:duration>\(episode.duration)</itunes:duration>\(chapters)\(podlove)</item>
                """
        }.joined(separator: "\n")
        return """
            <?xml version="1.0" encoding="UTF-8"?>
            <rss version="2.0" xmlns:itunes="http://www.itunes.com/dtds/podcast-1.0.dtd"
              xmlns:podcast="https://podcastindex.org/namespace/1.0" xmlns:psc="http://podlove.org/simple-chapters">
            <channel><title>Chaptered Show</title>
            \(items)
            </channel></rss>
            """
    }

    static let document = """
        {"version": "1.2.0", "chapters": [
          {"startTime": 0, "title": "Welcome"},
          {"startTime": 95.5, "title": "Picture only", "img": "https://example.net/a.jpg", "toc": false},
          {"startTime": 120.25, "title": "Interview"},
          {"startTime": 480, "title": "Listener mail", "url": "https://example.net"}
        ]}
        """

    func provider(_ server: FaultHTTPServer) -> RemoteCatalogProvider {
        let url = server.url("/feed.xml")
        var provider = RemoteCatalogProvider(
            source: CatalogSource(kind: .podcast, location: url.absoluteString), url: url, parser: PodcastFeedParser(),
            fetcher: HTTPCatalogFetcher(limits: HTTPFetchLimits(connectTimeout: .seconds(1), idleTimeout: .seconds(1))),
            policy: RefreshPolicy(requestTimeout: .seconds(3), maxAttempts: 1), sleep: { _ in }, random: { 0.5 })
        provider.chapterLimits = ChapterFetchLimits(maxBodyBytes: 64 * 1024, timeout: .seconds(3))
        return provider
    }

    func storedEpisodes(_ database: CatalogDatabase) async throws -> [String: ContentItem] {
        let show = try #require(try await allChildren(database, of: ContentItem.Section.podcasts).first)
        var found: [String: ContentItem] = [:]
        for episode in try await allChildren(database, of: show.identifier) {
            found[episode.title] = try await database.item(identifier: episode.identifier)
        }
        return found
    }

    @Test("podcast:chapters JSON is fetched with the feed, kept offline, not fetched again while the URL stays; psc:chapters inline")
    func fetchedCachedAndOffline() async throws {
        let server = try await FaultHTTPServer()
        let temp = try TemporaryCatalog("feed-chapters")
        defer {
            server.stop()
            temp.remove()
        }
        let database = try temp.open()
        let refresher = CatalogRefresher(database: database)
        await server.put("/one.json", data: Data(Self.document.utf8), contentType: "application/json+chapters")
        var episodes = [
            Episode(number: 1, chaptersPath: "/one.json"),
            Episode(number: 2, podlove: [("00:00:00.000", "Start"), ("00:01:30.5", "Middle &amp; more"), ("5:00", "End")]),
            Episode(number: 3),
        ]
        await server.put("/feed.xml", body: Self.feed(episodes, server: server))
        let first = await refresher.refresh(provider(server))
        guard case .updated = first else {
            Issue.record("the first refresh should store the feed: \(first)")
            return
        }
        var items = try await storedEpisodes(database)
        let one = try #require(items["Episode 1"]?.chapters)
        #expect(one.map(\.title) == ["Welcome", "Interview", "Listener mail"])
        #expect(one.map(\.startTime) == [0, 120.25, 480])
        #expect(items["Episode 2"]?.chapters?.map(\.title) == ["Start", "Middle & more", "End"])
        #expect(items["Episode 2"]?.chapters?.map(\.startTime) == [0, 90.5, 300])
        #expect(items["Episode 3"]?.chapters == nil)

        // The feed changes (a new episode): the same URL is not fetched again.
        episodes.append(Episode(number: 4))
        await server.put("/feed.xml", body: Self.feed(episodes, server: server))
        guard case .updated = await refresher.refresh(provider(server)) else {
            Issue.record("the second refresh should store the new episode")
            return
        }
        #expect(await server.requests().filter { $0.path == "/one.json" }.count == 1)
        #expect(try await storedEpisodes(database)["Episode 1"]?.chapters == one)

        // Offline: the server is gone, the refresh fails, the chapters are still there.
        server.stop()
        guard case .failed = await refresher.refresh(provider(server)) else {
            Issue.record("a refresh without the server should fail")
            return
        }
        items = try await storedEpisodes(database)
        #expect(items["Episode 1"]?.chapters == one)
        #expect(items["Episode 2"]?.chapters?.count == 3)
        try database.close()
    }

    @Test("a chapters URL that is dead, huge or not JSON, and chapters out of order or past the end, are ignored with one log line each")
    func badChapterDataIsIgnored() async throws {
        let server = try await FaultHTTPServer()
        let temp = try TemporaryCatalog("bad-feed-chapters")
        defer {
            server.stop()
            temp.remove()
        }
        let database = try temp.open()
        let logs = LogRecorder()
        let refresher = CatalogRefresher(database: database, logger: logs.logger())
        await server.put("/good.json", data: Data(Self.document.utf8), contentType: "application/json")
        await server.put("/page.json", data: Data("<html><body>Not found</body></html>".utf8), contentType: "text/html")
        let huge = "{\"chapters\": [" + (0..<20_000).map { "{\"startTime\": \($0), \"title\": \"c\"}" }.joined(separator: ",") + "]}"
        await server.put("/huge.json", data: Data(huge.utf8), contentType: "application/json")
        await server.put("/shuffled.json", data: Data(#"{"chapters": [{"startTime": 0}, {"startTime": 300}, {"startTime": 200}]}"#.utf8),
                         contentType: "application/json")
        await server.put("/late.json", data: Data(#"{"chapters": [{"startTime": 0, "title": "a"}, {"startTime": 900, "title": "b"}]}"#.utf8),
                         contentType: "application/json")
        let episodes = [
            Episode(number: 1, chaptersPath: "/good.json"), Episode(number: 2, chaptersPath: "/missing.json"),
            Episode(number: 3, chaptersPath: "/page.json"), Episode(number: 4, chaptersPath: "/huge.json"),
            Episode(number: 5, chaptersPath: "/shuffled.json"), Episode(number: 6, chaptersPath: "/late.json", duration: "5:00"),
            Episode(number: 7, podlove: [("00:02:00", "Later"), ("00:01:00", "Earlier")]),
        ]
        await server.put("/feed.xml", body: Self.feed(episodes, server: server))
        let report = await refresher.refresh(provider(server))
        guard case .updated = report else {
            Issue.record("bad chapters must not fail the refresh: \(report)")
            return
        }
        let items = try await storedEpisodes(database)
        #expect(items.count == 7)
        #expect(items["Episode 1"]?.chapters?.count == 3)
        for number in [2, 3, 4, 5, 7] {
            let item = try #require(items["Episode \(number)"])
            #expect(item.chapters == nil, "episode \(number)")
            #expect(item.isPlayable && item.uri != nil)
        }
        #expect(items["Episode 6"]?.chapters?.map(\.title) == ["a"])
        for (number, why) in [(2, "404"), (3, "not JSON"), (4, "too large"), (5, "out of order"), (6, "past the end"), (7, "out of order")] {
            #expect(logs.lines(containing: "Episode \(number)", why).count == 1, "episode \(number): \(logs.messages)")
        }
        #expect(logs.lines(containing: "Episode 1\"").isEmpty)
        try database.close()
    }
}
