import CatalogStore
import ContentTree
import Foundation
import Testing

@Suite("radio lists and JSON catalogs")
struct PlaylistAndJSONTests {
    let radio = CatalogSource(kind: .radio, location: "https://radio.example.net/lists/stations.m3u8")

    @Test("an M3U list with EXTINF becomes live stations in order")
    func m3u() throws {
        let text = """
            \u{FEFF}#EXTM3U
            #EXTINF:-1 tvg-logo="https://logo.example/a.png" group-title="News, Talk",Station A, the first
            http://stream.example.net/a

            #EXTINF:-1,Station B
            relative/b.aac
            # a comment
            https://stream.example.net/c
            #EXTINF:-1,Duplicate of A
            http://stream.example.net/a
            """
        let snapshot = try RadioPlaylistParser().parse(Data(text.utf8), baseURL: URL(string: radio.location), source: radio)
        let stations = snapshot.topLevel.compactMap { snapshot.items[$0] }
        #expect(stations.map(\.title) == ["Station A, the first", "Station B", "stream.example.net"])
        #expect(stations.map(\.uri) == [
            "http://stream.example.net/a", "https://radio.example.net/lists/relative/b.aac", "https://stream.example.net/c",
        ])
        #expect(stations.allSatisfy { $0.isStreamingContent && $0.isPlayable && $0.duration == nil })
        #expect(stations[0].artworkURL == "https://logo.example/a.png" && stations[0].genre == "News, Talk")
        #expect(stations[0].containerIdentifier == ContentItem.Section.radio)
    }

    @Test("a PLS list becomes live stations in entry order")
    func pls() throws {
        let text = """
            [playlist]
            NumberOfEntries=2
            File2=http://stream.example.net/two
            Title2=Two
            file1=http://stream.example.net/one
            title1=One
            Length1=-1
            Version=2
            """
        let snapshot = try RadioPlaylistParser().parse(Data(text.utf8), baseURL: nil, source: radio)
        let stations = snapshot.topLevel.compactMap { snapshot.items[$0] }
        #expect(stations.map(\.title) == ["One", "Two"])
        #expect(stations.allSatisfy { $0.isStreamingContent })
    }

    @Test("an empty list is refused")
    func emptyList() {
        #expect(throws: CatalogParseError.self) {
            try RadioPlaylistParser().parse(Data("#EXTM3U\n".utf8), baseURL: nil, source: radio)
        }
    }

    @Test("the JSON catalog format builds containers, playables and shared entries")
    func jsonCatalog() async throws {
        let source = CatalogSource(kind: .json, location: "https://cat.example.net/catalog.json")
        let text = """
            {"format": "medianode-catalog", "version": 1, "title": "Curated",
             "items": [
               {"id": "mixes", "title": "Mixes", "artwork": "img/mixes.png", "children": [
                  {"id": "m1", "title": "Morning", "uri": "audio/m1.ogg", "duration": 1800, "artist": "DJ",
                   "explicit": true, "trackNumber": 1},
                  {"id": "live", "title": "Live now", "uri": "https://live.example.net/s", "live": true, "duration": 5}
               ]},
               {"id": "favs", "title": "Favourites", "children": [{"ref": "m1"}]}
             ]}
            """
        let snapshot = try JSONCatalogParser().parse(Data(text.utf8), baseURL: URL(string: source.location), source: source)
        #expect(snapshot.title == "Curated")
        let mixes = try #require(snapshot.items["\(source.identifier)/mixes"])
        #expect(mixes.isContainer && mixes.artworkURL == "https://cat.example.net/img/mixes.png")
        let m1 = try #require(snapshot.items["\(source.identifier)/m1"])
        #expect(m1.isPlayable && m1.uri == "https://cat.example.net/audio/m1.ogg" && m1.isExplicitContent)
        #expect(m1.containerIdentifier == mixes.identifier)
        let live = try #require(snapshot.items["\(source.identifier)/live"])
        #expect(live.isStreamingContent && live.duration == nil)
        #expect(snapshot.children["\(source.identifier)/favs"] == [m1.identifier])

        let temp = try TemporaryCatalog()
        defer { temp.remove() }
        let database = try temp.open()
        try await database.register(source)
        try await database.replaceContent(of: source.identifier, with: snapshot)
        #expect(try await database.item(at: [1, 0])?.identifier == m1.identifier)
        #expect(try await database.item(at: [0])?.title == "Mixes")
    }

    @Test("links come out as Foundation's URL resolves them, clean absolute ones untouched, the rest repaired")
    func links() throws {
        let base = URL(string: "https://cdn.example.net/catalogs/main.json")!
        let links = [
            "https://example.net/1.mp3", "HTTPS://Example.NET/a/../b?x=1&y=%20#frag", "file:///music/a%20b.ogg",
            "https://x/~u/a_b-c.d!$&'()*+,;=:@", "https://x/y?c=%E2%82%AC", "  https://padded.example.net/x.mp3 ",
            "https://example.net/with space.mp3", "https://example.net/bad%zzescape.mp3", "https://x/a#b#c",
            "relative/track.mp3", "/rooted.mp3", "https://x/{braces}.mp3", "https://example.net/ünïcode.mp3",
        ]
        let nodes = links.enumerated().map { index, link in
            ["id": "t\(index)", "title": "T\(index)", "uri": link]
        }
        let data = try JSONSerialization.data(withJSONObject: ["items": [["id": "a", "title": "A", "children": nodes]]])
        let json = CatalogSource(kind: .json, location: base.absoluteString)
        let snapshot = try JSONCatalogParser().parse(data, baseURL: base, source: json)
        for (index, link) in links.enumerated() {
            // The oracle: what the parser did with every link before clean ones skipped URL.
            let trimmed = link.trimmingCharacters(in: .whitespacesAndNewlines).replacingOccurrences(of: " ", with: "%20")
            let expected = URL(string: trimmed).flatMap { $0.scheme == nil ? nil : $0.absoluteString }
                ?? URL(string: trimmed, relativeTo: base)?.absoluteString ?? trimmed
            #expect(snapshot.items["\(json.identifier)/t\(index)"]?.uri == expected, "\(link)")
        }
        #expect(snapshot.items["\(json.identifier)/t9"]?.uri == "https://cdn.example.net/catalogs/relative/track.mp3")
    }

    @Test("malformed JSON catalogs are refused with a reason")
    func badJSON() {
        let source = CatalogSource(kind: .json, location: "x")
        for text in [
            "{", #"{"items": [{"title": "no id"}]}"#, #"{"format": "other", "items": []}"#,
            #"{"items": [{"id": "a", "title": "A"}, {"id": "a", "title": "again"}]}"#,
            #"{"version": 2, "items": []}"#,
        ] {
            #expect(throws: CatalogParseError.self, "\(text)") {
                try JSONCatalogParser().parse(Data(text.utf8), baseURL: nil, source: source)
            }
        }
    }
}
