import CatalogStore
import ContentTree
import Foundation
import GRDB
import Testing

/// The `search` command's answers as the catalog file gives them: real SQLite files, real FTS5.
@Suite("catalog search")
struct SearchTests {
    /// One JSON source: an album and a show, in this catalog order (containers are stored before playables).
    static let tracks: [(String, String, String?, String?)] = [
        ("s/council", "Walls Come Tumbling Down", "The Style Council", "Our Favourite Shop"),
        ("s/lifestyles", "Lifestyles", "Nobody", "Nothing"),
        ("s/of-love", "Style of Love", "Someone", "Mixed Bag"),
        ("s/style", "Style", "Taylor Swift", "1989"),
        ("s/styles", "Interlude", "Nobody", "Styles of Beyond"),
        ("s/shout", "STYLE!", "Another", "Mixed Bag"),
        ("s/angstrom", "Ångström", "Björk", "Mixed Bag"),
    ]

    static func snapshot(_ source: CatalogSource, tracks: [(String, String, String?, String?)] = tracks) -> CatalogSnapshot {
        var snapshot = CatalogSnapshot()
        snapshot.add(ContentItem(identifier: "s/mix", title: "Mixed Bag", isContainer: true, artist: "Various"))
        snapshot.add(ContentItem(identifier: "s/show", title: "Stylecast", isContainer: true, artist: "Host"))
        for (identifier, title, artist, album) in tracks {
            snapshot.add(
                ContentItem(identifier: identifier, title: title, isPlayable: true, uri: "file:///\(identifier).ogg",
                            artist: artist, albumTitle: album, duration: 100),
                under: "s/mix")
        }
        snapshot.add(
            ContentItem(identifier: "s/episode", title: "Episode One", isPlayable: true, uri: "https://x/1.mp3",
                        artist: "Host", albumTitle: "Stylecast", duration: 600),
            under: "s/show")
        return snapshot
    }

    static func open(_ temp: TemporaryCatalog) async throws -> CatalogDatabase {
        let database = try temp.open()
        let source = CatalogSource(kind: .json, location: "test://search")
        try await database.register(source)
        try await database.replaceContent(of: source.identifier, with: snapshot(source))
        return database
    }

    @Test("a word prefix finds, whatever the case and the accents")
    func prefixesCaseAndAccents() async throws {
        let temp = try TemporaryCatalog("search-prefix")
        defer { temp.remove() }
        let database = try await Self.open(temp)
        #expect(try await database.search("angstrom", limit: 5).items.map(\.identifier) == ["s/angstrom"])
        #expect(try await database.search("ÅNGSTRÖM", limit: 5).items.map(\.identifier) == ["s/angstrom"])
        #expect(try await database.search("angst", limit: 5).items.map(\.identifier) == ["s/angstrom"])
        #expect(try await database.search("bjork", limit: 5).items.map(\.identifier) == ["s/angstrom"])
        // A prefix of a word, not of any text inside one: "Lifestyles" is no match for "sty".
        let sty = try await database.search("sty", limit: 20).items.map(\.identifier)
        #expect(sty.contains("s/style") && !sty.contains("s/lifestyles"))
        // Every word must match, each as a prefix, in any of the names.
        #expect(try await database.search("taylor sty", limit: 5).items.map(\.identifier) == ["s/style"])
        #expect(try await database.search("taylor blues", limit: 5).total == 0)
        #expect(try await database.search("zzz", limit: 5) == SearchResults(items: [], total: 0))
    }

    @Test("equal titles first, then titles holding the words, then artist, album and show names, each in catalog order")
    func ranking() async throws {
        let temp = try TemporaryCatalog("search-rank")
        defer { temp.remove() }
        let database = try await Self.open(temp)
        let results = try await database.search("style", limit: 20)
        #expect(results.items.map(\.identifier) == [
            "s/style", "s/shout",  // the title is the query ("STYLE!" folds to it)
            "s/of-love",  // a title word starts with it
            "s/show",  // "Stylecast": a title word starts with it too (a container, stored first)
            "s/council", "s/styles", "s/episode",  // artist, album, show name
        ].sorted(by: Self.rankThenCatalogOrder))
        #expect(results.total == 7)
        // Each result is the full item browse shows.
        let style = try #require(results.items.first)
        #expect(style == (try await database.item(identifier: "s/style")))
        #expect(style.isPlayable && style.uri == "file:///s/style.ogg" && style.artist == "Taylor Swift")
    }

    /// The expected order above, spelled out: tier, then the order the catalog stored the rows in.
    static func rankThenCatalogOrder(_ lhs: String, _ rhs: String) -> Bool {
        let tiers = ["s/style": 0, "s/shout": 0, "s/of-love": 1, "s/show": 1, "s/council": 2, "s/styles": 2, "s/episode": 2]
        let stored = ["s/mix", "s/show", "s/council", "s/lifestyles", "s/of-love", "s/style", "s/styles", "s/shout",
                      "s/angstrom", "s/episode"]
        return (tiers[lhs]!, stored.firstIndex(of: lhs)!) < (tiers[rhs]!, stored.firstIndex(of: rhs)!)
    }

    @Test("total counts every match; limit cuts only the list")
    func totalAndLimit() async throws {
        let temp = try TemporaryCatalog("search-limit")
        defer { temp.remove() }
        let database = try await Self.open(temp)
        let all = try await database.search("mixed", limit: 20)
        #expect(all.total == 4 && all.items.map(\.identifier) == ["s/mix", "s/of-love", "s/shout", "s/angstrom"])
        let two = try await database.search("mixed", limit: 2)
        #expect(two.total == 4 && two.items.map(\.identifier) == ["s/mix", "s/of-love"])
        let none = try await database.search("mixed", limit: 0)
        #expect(none.total == 4 && none.items.isEmpty)
    }

    @Test("query text is never FTS5 syntax", arguments: [
        "\"", "*", "NEAR", "AND", "OR", "NOT", "-", "(", ")", "\"unterminated", "NEAR(style council, 2)",
        "style AND council", "style OR council", "-style", "style*", "^style", "title:style", "{title}: style",
        "'); DROP TABLE item; --", "' OR '1'='1", "style\u{0}council", "a\"b", "(((", "x:y:z", "\\", "%_%",
    ])
    func hostileText(_ text: String) async throws {
        let temp = try TemporaryCatalog("search-hostile")
        defer { temp.remove() }
        let database = try await Self.open(temp)
        let source = CatalogSource(kind: .json, location: "test://operators")
        try await database.register(source)
        var operators = CatalogSnapshot()
        operators.add(ContentItem(
            identifier: "o/words", title: "AND NEAR NOT OR", isPlayable: true, uri: "file:///o.ogg", artist: "Title"))
        try await database.replaceContent(of: source.identifier, with: operators)

        let results = try await database.search(text, limit: 50)
        // Exactly the rows that hold every word of the text as a word prefix, found literally.
        let words = text.split { !$0.isLetter && !$0.isNumber }.map { $0.lowercased() }
        let expected = try await Self.literalMatches(of: words, in: database)
        #expect(Set(results.items.map(\.identifier)) == expected, "\(text)")
        #expect(results.total == expected.count)
        // The file is untouched.
        #expect(try await database.summary().playables == 9)
    }

    /// The rows a literal reading of the words matches, worked out without FTS5.
    static func literalMatches(of words: [String], in database: CatalogDatabase) async throws -> Set<String> {
        guard !words.isEmpty else { return [] }
        let rows = try await database.pool.read { db in
            try Row.fetchAll(db, sql: "SELECT identifier, title, artist, albumTitle FROM item WHERE isPlayable OR identifier IN ('s/mix', 's/show')")
        }
        var matches: Set<String> = []
        for row in rows {
            let names = [row[1], row[2], row[3]].compactMap { $0 as String? }.joined(separator: " ")
            let nameWords = names.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil)
                .split { !$0.isLetter && !$0.isNumber }
            if words.allSatisfy({ word in nameWords.contains { $0.hasPrefix(word) } }) { matches.insert(row[0]) }
        }
        return matches
    }

    @Test("the index follows a refresh that adds, changes and removes items, in its transaction")
    func followsRefresh() async throws {
        let temp = try TemporaryCatalog("search-refresh")
        defer { temp.remove() }
        let database = try await Self.open(temp)
        let source = try #require(try await database.sources().first)
        let tracks = Self.tracks.filter { $0.0 != "s/angstrom" }
            .map { $0.0 == "s/style" ? ($0.0, "Shake It Off", $0.2, $0.3) : $0 }
            + [("s/new", "Brand New Style", nil, nil)]
        try await database.replaceContent(of: source.identifier, with: Self.snapshot(source, tracks: tracks))

        #expect(try await database.search("angstrom", limit: 5).total == 0)
        #expect(try await database.search("shake off", limit: 5).items.map(\.identifier) == ["s/style"])
        #expect(try await database.search("brand", limit: 5).items.map(\.identifier) == ["s/new"])
        // "Style" is gone as a title; the new title holds the word, and its new row comes last in its tier.
        let style = try await database.search("style", limit: 20).items.map(\.identifier)
        #expect(style == ["s/shout", "s/show", "s/of-love", "s/new", "s/council", "s/styles", "s/episode"])

        // Gone with the source, and with the file reopened.
        try await database.remove(sourceIdentifier: source.identifier)
        #expect(try await database.search("style", limit: 20).total == 0)
        try database.close()
        #expect(try await temp.open().search("mixed", limit: 5).total == 0)
    }

    @Test("a file from before ranked search gets its index built when it is opened")
    func migrationBuildsIndex() async throws {
        let temp = try TemporaryCatalog("search-migrate")
        defer { temp.remove() }
        do {
            // A version 6 file: the index of the time (external content, every row) and no v7 row.
            let database = try await Self.open(temp)
            try await database.pool.write { db in
                try db.execute(sql: """
                    DROP TABLE item_search;
                    DROP TABLE item_title_key;
                    CREATE VIRTUAL TABLE item_search USING fts5(
                        title, artist, albumTitle, content='item', content_rowid='rowid',
                        tokenize='unicode61 remove_diacritics 2');
                    INSERT INTO item_search (item_search) VALUES ('rebuild');
                    DELETE FROM grdb_migrations WHERE identifier LIKE 'v7:%';
                    """)
            }
            try database.close()
        }
        let database = try temp.open()
        let results = try await database.search("style", limit: 20)
        #expect(results.items.first?.identifier == "s/style" && results.total == 7)
        let columns = try await database.pool.read { db in
            try Row.fetchAll(db, sql: "PRAGMA table_info(item_search)").map { $0["name"] as String }
        }
        #expect(columns == ["title", "artist", "albumTitle"])
        let keys = try await database.pool.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM item_title_key") }
        #expect(keys == 10)
    }
}
