import ContentTree
import MediaJSON
import MediaNodeTesting
import Testing

/// A repeated browse is answered from the published node's document, encoded once (S26), and never from
/// a document a catalog change or a saved position has made stale.
@Suite("Browse answers from the published documents")
struct PublishedAnswerTests {
    static let topic: @Sendable (String) -> String = { "artwork/\($0)" }

    @Test("a published node answers a browse of the same page with the bytes its topic carries")
    func publishedNodeAnswers() async throws {
        let tree = manager(sampleCatalog())
        let start = try await tree.start()
        let songs = try #require(start.published.first { $0.indexPath == [0, 1] })
        let answer = try #require(tree.publishedAnswer([0, 1], offset: nil, limit: nil))
        #expect(answer.node == songs)
        #expect(answer.document.bytes == songs.json(artworkTopic: Self.topic).jsonBytes)
        #expect(start.document(for: songs, artworkTopic: Self.topic) == answer.document)
        #expect(tree.publishedAnswer([0, 1], offset: 0, limit: 100)?.node == songs)
        // Another page, another page size, or a node never published goes through browse.
        #expect(tree.publishedAnswer([0, 1], offset: 100, limit: nil) == nil)
        #expect(tree.publishedAnswer([0, 1], offset: 0, limit: 10) == nil)
        #expect(tree.publishedAnswer([0, 0, 1], offset: nil, limit: nil) == nil)
    }

    @Test("after browsing another page, that page is what answers; the containers to prefetch are named once")
    func browsedPageAnswers() async throws {
        let tree = manager(sampleCatalog())
        _ = try await tree.start()
        guard case let .node(page, _, _) = try await tree.browse([0, 1], offset: 200, limit: 100) else {
            Issue.record("no node")
            return
        }
        #expect(tree.publishedAnswer([0, 1], offset: 200, limit: 100)?.node == page)
        #expect(tree.publishedAnswer([0, 1], offset: nil, limit: nil) == nil)
        let first = try #require(tree.publishedAnswer([0, 0], offset: nil, limit: nil))
        #expect(first.prefetch == ["album:0", "album:1", "album:2"])
        #expect(tree.publishedAnswer([0, 0], offset: nil, limit: nil)?.prefetch == [])
    }

    @Test("a change notice drops the changed container's node and everything below it until the flush republishes")
    func changeNoticeDropsStaleAnswers() async throws {
        let catalog = sampleCatalog()
        let tree = manager(catalog)
        _ = try await tree.start()
        _ = try await tree.browse([0, 0, 1])
        #expect(tree.publishedAnswer([0, 0, 1], offset: nil, limit: nil) != nil)
        catalog.remove("album:1")
        let diff = CatalogDiff(removedContainers: ["album:1"], changedContainers: ["lib:albums"])
        tree.catalogChanged(diff)
        #expect(tree.publishedAnswer([0, 0], offset: nil, limit: nil) == nil)
        #expect(tree.publishedAnswer([0, 0, 1], offset: nil, limit: nil) == nil, "position 1 holds another album now")
        #expect(tree.publishedAnswer([0, 1], offset: nil, limit: nil) != nil, "the songs did not change")
        _ = try await tree.apply(diff)
        let albums = try #require(tree.publishedAnswer([0, 0], offset: nil, limit: nil))
        #expect(albums.node.children.map(\.identifier) == ["album:0", "album:2"])
        #expect(tree.publishedAnswer([0, 0, 1], offset: nil, limit: nil)?.node.item?.identifier == "album:2")
    }

    @Test("a saved position drops the lists showing the item; a new context drops everything")
    func progressAndLimitsDropAnswers() async throws {
        let catalog = sampleCatalog()
        let tree = manager(catalog)
        _ = try await tree.start()
        try await catalog.savePlaybackPosition(PlaybackPosition(elapsed: 300, duration: 600, updatedAt: 0), for: "episode:1")
        tree.progressChanged(["episode:1"])
        #expect(tree.publishedAnswer([1, 0], offset: nil, limit: nil) == nil)
        #expect(tree.publishedAnswer([0, 0], offset: nil, limit: nil) != nil)
        _ = try await tree.apply(CatalogDiff(), progressChanged: ["episode:1"])
        let feed = try #require(tree.publishedAnswer([1, 0], offset: nil, limit: nil))
        #expect(feed.node.children[1].playbackProgress == 0.5)

        _ = try await tree.setLimits(ContentLimits(isEnforced: true, itemsCount: 1, treeDepth: 2))
        #expect(tree.publishedAnswer([0, 0], offset: nil, limit: nil) == nil, "too deep now")
        #expect(tree.publishedAnswer([0], offset: nil, limit: nil)?.node.children.count == 1)
    }
}
