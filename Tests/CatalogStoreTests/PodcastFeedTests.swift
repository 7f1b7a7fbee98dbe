import CatalogStore
import ContentTree
import Foundation
import Testing

@Suite("podcast feeds")
struct PodcastFeedTests {
    let source = CatalogSource(kind: .podcast, location: "https://pods.example.net/show/feed.xml")

    static let quirkyFeed = """
        <?xml version="1.0" encoding="UTF-8"?>
        <rss version="2.0" xmlns:itunes="http://www.itunes.com/dtds/podcast-1.0.dtd"
             xmlns:content="http://purl.org/rss/1.0/modules/content/">
        <channel>
          <title><![CDATA[Night & Day <Radio>]]></title>
          <link>https://pods.example.net/show/</link>
          <description>&lt;p&gt;A show about &lt;b&gt;things&lt;/b&gt;&amp;nbsp;and more.&lt;/p&gt;</description>
          <itunes:author>Jane Host</itunes:author>
          <itunes:image href="art/show.jpg"/>
          <itunes:explicit>no</itunes:explicit>
          <item>
            <title>Old episode</title>
            <guid isPermaLink="false">ep-1</guid>
            <pubDate>Mon, 01 Jan 2024 08:00:00 GMT</pubDate>
            <enclosure url="media/ep1.mp3" type="audio/mpeg" length="123"/>
            <itunes:duration>3600</itunes:duration>
          </item>
          <item>
            <title>Newest episode</title>
            <guid>ep-3</guid>
            <pubDate>Wed, 03 Jan 2024 08:00:00 +0000</pubDate>
            <enclosure url="https://cdn.example.net/ep3.mp3" type="audio/mpeg"/>
            <itunes:duration>59:59</itunes:duration>
            <itunes:explicit>yes</itunes:explicit>
            <itunes:image href="https://cdn.example.net/ep3.jpg"/>
            <description><![CDATA[<p>Notes with <a href="x">a link</a> &amp; more</p><br/>Second line]]></description>
          </item>
          <item>
            <title>Middle episode</title>
            <pubDate>Tue, 2 Jan 2024 08:00 EST</pubDate>
            <enclosure url="/abs/ep2.mp3"/>
            <itunes:duration>1:02:03</itunes:duration>
          </item>
          <item>
            <title>No audio, not playable</title>
            <guid>ep-x</guid>
          </item>
          <item>
            <enclosure url="media/untitled.mp3"/>
            <itunes:duration>garbage</itunes:duration>
          </item>
        </channel>
        </rss>
        """

    @Test("a feed becomes one container with its episodes newest first")
    func channelAndEpisodes() throws {
        let snapshot = try PodcastFeedParser().parse(Data(Self.quirkyFeed.utf8), baseURL: URL(string: source.location), source: source)
        let feed = try #require(snapshot.topLevel.first.flatMap { snapshot.items[$0] })
        #expect(snapshot.topLevel.count == 1)
        #expect(feed.title == "Night & Day <Radio>" && feed.isContainer && feed.displaysPlaybackProgress)
        #expect(feed.summary == "A show about things and more.")
        #expect(feed.artworkURL == "https://pods.example.net/show/art/show.jpg")
        let episodes = (snapshot.children[feed.identifier] ?? []).compactMap { snapshot.items[$0] }
        #expect(episodes.map(\.title) == ["Newest episode", "Middle episode", "Old episode", "Episode"])
        #expect(episodes.allSatisfy { $0.isPlayable && !$0.isContainer && $0.containerIdentifier == feed.identifier })
        #expect(episodes.map(\.uri) == [
            "https://cdn.example.net/ep3.mp3", "https://pods.example.net/abs/ep2.mp3",
            "https://pods.example.net/show/media/ep1.mp3", "https://pods.example.net/show/media/untitled.mp3",
        ])
        #expect(episodes.map(\.duration) == [3599, 3723, 3600, nil])
        #expect(episodes.map(\.isExplicitContent) == [true, false, false, false])
        #expect(episodes[0].summary == "Notes with a link & more Second line")
        #expect(episodes[0].artworkURL == "https://cdn.example.net/ep3.jpg")
        #expect(episodes[2].artworkURL == feed.artworkURL)
        #expect(episodes[0].releaseDate == "2024-01-03" && episodes[0].artist == "Jane Host")
    }

    @Test("episode identifiers are stable across fetches and differ between feeds")
    func stableIdentifiers() throws {
        let data = Data(Self.quirkyFeed.utf8)
        let first = try PodcastFeedParser().parse(data, baseURL: nil, source: source)
        let again = try PodcastFeedParser().parse(data, baseURL: nil, source: source)
        #expect(first.order == again.order)
        let other = CatalogSource(kind: .podcast, location: "https://elsewhere.example.net/feed.xml")
        let third = try PodcastFeedParser().parse(data, baseURL: nil, source: other)
        #expect(Set(first.order).isDisjoint(with: third.order))
    }

    @Test("itunes durations parse in seconds, MM:SS and HH:MM:SS")
    func durations() {
        #expect(PodcastFeedParser.duration("3600") == 3600)
        #expect(PodcastFeedParser.duration(" 45:07 ") == 2707)
        #expect(PodcastFeedParser.duration("01:02:03") == 3723)
        #expect(PodcastFeedParser.duration("90.5") == 90.5)
        #expect(PodcastFeedParser.duration("") == nil)
        #expect(PodcastFeedParser.duration("1:2:3:4") == nil)
        #expect(PodcastFeedParser.duration("abc") == nil)
    }

    @Test("truncated or non-RSS bytes are refused")
    func refusesBrokenFeeds() {
        let truncated = Data(Self.quirkyFeed.utf8.prefix(900))
        #expect(throws: CatalogParseError.self) { try PodcastFeedParser().parse(truncated, baseURL: nil, source: source) }
        #expect(throws: CatalogParseError.self) {
            try PodcastFeedParser().parse(Data("<html><body>hi</body></html>".utf8), baseURL: nil, source: source)
        }
    }

    @Test("a minimal feed with almost nothing still imports")
    func minimalFeed() throws {
        let feed = #"<rss><channel><item><enclosure url="https://a.example/1.mp3"/></item></channel></rss>"#
        let snapshot = try PodcastFeedParser().parse(Data(feed.utf8), baseURL: nil, source: source)
        #expect(snapshot.count == 2)
        #expect(snapshot.items[snapshot.topLevel[0]]?.title == source.location)
    }
}
