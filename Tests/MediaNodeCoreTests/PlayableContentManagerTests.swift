import ContentTree
import MediaJSON
import MediaNodeTesting
import Synchronization
import Testing

/// root > Library > (Albums > 3 albums of 5 tracks, Songs > 250 tracks); root > Podcasts > a feed of 3 episodes.
func sampleCatalog() -> InMemoryContentCatalog {
    let catalog = InMemoryContentCatalog()
    catalog.add(.container(ContentItem.Section.library, title: "Library"))
    catalog.add(.container(ContentItem.Section.podcasts, title: "Podcasts"))
    catalog.add(.container("lib:albums", title: "Albums"), under: ContentItem.Section.library)
    catalog.add(.container("lib:songs", title: "Songs"), under: ContentItem.Section.library)
    for album in 0..<3 {
        catalog.add(.container("album:\(album)", title: "Album \(album)"), under: "lib:albums")
        for track in 0..<5 {
            catalog.add(ContentItem(identifier: "track:\(album)-\(track)", title: "Track \(track)", isPlayable: true,
                                    uri: "/music/\(album)/\(track).ogg", duration: 100), under: "album:\(album)")
        }
    }
    for song in 0..<250 {
        catalog.add(ContentItem(identifier: "song:\(song)", title: "Song \(song)", isPlayable: true), under: "lib:songs")
    }
    catalog.add(ContentItem(identifier: "feed:1", title: "A Show", isContainer: true, displaysPlaybackProgress: true),
                under: ContentItem.Section.podcasts)
    for episode in 0..<3 {
        catalog.add(ContentItem(identifier: "episode:\(episode)", title: "Episode \(episode)", isPlayable: true,
                                uri: "/podcast/\(episode).mp3", duration: 600), under: "feed:1")
    }
    return catalog
}

func manager(_ catalog: any ContentCatalog, depth: Int = 2) -> PlayableContentManager {
    PlayableContentManager(catalog: catalog, configuration: ContentTreeConfiguration(publishedDepth: depth))
}

@Suite("Playable content manager: the tree, limits and changes without a broker")
struct PlayableContentManagerTests {
    @Test("updates reach the publisher in the order made: a start and limits racing leave nothing past the limit",
          arguments: 1...50)
    func updatesArePublishedInOrder(run: Int) async throws {
        // What the retained topics hold, replayed from what the publisher received.
        let retained = Mutex<Set<IndexPath>>([])
        let tree = PlayableContentManager(
            catalog: sampleCatalog(), configuration: ContentTreeConfiguration(publishedDepth: 2),
            publish: { update in
                retained.withLock { paths in
                    for change in update.changes {
                        switch change {
                        case let .publish(node): paths.insert(node.indexPath)
                        case let .clear(path): paths.remove(path)
                        }
                    }
                }
            })
        async let started = tree.start()
        async let limited = tree.setLimits(ContentLimits(isEnforced: true, treeDepth: 2))
        _ = try await (started, limited)
        let paths = retained.withLock { $0 }
        #expect(paths.contains(.root) && paths.contains(IndexPath([0])), "run \(run): \(paths)")
        #expect(paths.allSatisfy { $0.depth < 2 }, "run \(run): past the enforced depth: \(paths)")
    }

    @Test("an empty catalog publishes a root holding one status item that is neither playable nor a container")
    func emptyRootHasStatusItem() async throws {
        let tree = manager(InMemoryContentCatalog())
        let update = try await tree.start()
        #expect(update.published.map(\.indexPath) == [.root])
        let root = try #require(update.published.first)
        #expect(root.childCount == 1)
        let status = try #require(root.children.first)
        #expect(!status.isPlayable && !status.isContainer)
        #expect(status.title == "Connect a USB drive")
        let json = root.json(artworkTopic: { $0 })
        #expect(json["item"] == nil)
        #expect(json["children"]?.arrayValue?.first?["subtitle"]?.stringValue != nil)
        let offline = try await tree.setEmptyRootReason(.offline)
        #expect(offline.published.first?.children.first?.title == EmptyRootReason.offline.title)
    }

    @Test("start publishes the root, its sections and their children, first pages of 100 only")
    func startPublishesUpperLevels() async throws {
        let update = try await manager(sampleCatalog()).start()
        // Depth first, parents before children.
        #expect(update.published.map(\.indexPath) == [[], [0], [0, 0], [0, 1], [1], [1, 0]])
        #expect(update.cleared.isEmpty)
        let songs = try #require(update.published.first { $0.indexPath == [0, 1] })
        #expect(songs.childCount == 250)
        #expect(songs.children.count == 100)
        #expect(songs.offset == 0)
        let feed = try #require(update.published.first { $0.indexPath == [1, 0] })
        #expect(feed.displaysPlaybackProgress)
        let albums = try #require(update.published.first { $0.indexPath == [0, 0] })
        #expect(!albums.displaysPlaybackProgress)
        // Every item carries every field of S21.
        let item = try #require(feed.json(artworkTopic: { $0 })["children"]?.arrayValue?.first)
        for key in ["identifier", "title", "subtitle", "artwork", "playbackProgress", "isContainer", "isPlayable",
                    "isStreamingContent", "isExplicitContent"] {
            #expect(item[key] != nil, "missing \(key)")
        }
        #expect(item["playbackProgress"] == -1)
        #expect(feed.json(artworkTopic: { $0 })["version"]?.numberValue != nil)
    }

    @Test("the published depth is configurable")
    func configurableDepth() async throws {
        let update = try await manager(sampleCatalog(), depth: 0).start()
        #expect(update.published.map(\.indexPath) == [.root])
    }

    @Test("while limits are enforced no node lists more than the count and nothing at the depth is published or answered")
    func limitsTrimAndClear() async throws {
        let tree = manager(sampleCatalog())
        _ = try await tree.start()
        _ = try await tree.browse([0, 0, 1])
        let limited = try await tree.setLimits(ContentLimits(isEnforced: true, itemsCount: 1, treeDepth: 2))
        // [1] is beyond the count of 1, [0, 0] and below beyond the depth.
        #expect(Set(limited.cleared) == [[0, 0], [0, 1], [1], [1, 0], [0, 0, 1]])
        #expect(await tree.publishedPaths == [[], [0]])
        for node in limited.published { #expect(node.children.count <= 1 && node.childCount <= 1) }
        let root = try #require(await tree.node(at: .root))
        #expect(root.children.count == 1 && root.childCount == 1)
        guard case .noSuchContent = try await tree.browse([0, 0]) else {
            Issue.record("browse beyond the depth must answer noSuchContent")
            return
        }
        // [1] is beyond the count of 1: not reachable either.
        guard case .noSuchContent = try await tree.browse([1]) else {
            Issue.record("browse beyond the count must answer noSuchContent")
            return
        }
        #expect(try await tree.resolve([0, 0, 0]) == nil)
        #expect(try await tree.resolve([0, 0])?.item?.identifier == "lib:albums")
        // With depth 3 the root, its sections and their children's lists are reachable, nothing below.
        let three = try await tree.setLimits(ContentLimits(isEnforced: true, itemsCount: 12, treeDepth: 3))
        #expect(await tree.publishedPaths == [[], [0], [1], [0, 0], [0, 1], [1, 0]])
        let songs = try #require(three.published.first { $0.indexPath == [0, 1] })
        #expect(songs.children.count == 12 && songs.childCount == 12)
        guard case .noSuchContent = try await tree.browse([0, 0, 0]) else {
            Issue.record("browse at the enforced depth must answer noSuchContent")
            return
        }
        // Lifting the limits republishes the full first pages.
        let lifted = try await tree.setLimits(.none)
        #expect(lifted.published.first { $0.indexPath == [0, 1] }?.children.count == 100)
        #expect(lifted.cleared.isEmpty)
    }

    @Test("browse answers a further page, publishes it, and names containers to prefetch")
    func browsePages() async throws {
        let tree = manager(sampleCatalog())
        _ = try await tree.start()
        guard case let .node(page, update, _) = try await tree.browse([0, 1], offset: 200, limit: 100) else {
            Issue.record("no node")
            return
        }
        #expect(page.offset == 200 && page.children.count == 50 && page.childCount == 250)
        #expect(update.published.map(\.indexPath) == [[0, 1]])
        guard case let .node(albums, _, prefetch) = try await tree.browse([0, 0]) else {
            Issue.record("no node")
            return
        }
        #expect(albums.children.count == 3)
        #expect(prefetch == ["album:0", "album:1", "album:2"])
        await tree.prefetch(prefetch)
        guard case let .node(album, _, _) = try await tree.browse([0, 0, 2]) else {
            Issue.record("no node")
            return
        }
        #expect(album.item?.identifier == "album:2" && album.children.count == 5)
        guard case .noSuchContent = try await tree.browse([0, 0, 2, 0]) else {
            Issue.record("a playable is not browsable")
            return
        }
        guard case .noSuchContent = try await tree.browse([7]) else {
            Issue.record("an unknown path must answer noSuchContent")
            return
        }
    }

    @Test("a catalog change republishes only the nodes it touched and clears the ones that vanished, with a newer version")
    func diffRepublishesOnlyChangedNodes() async throws {
        let catalog = sampleCatalog()
        let tree = manager(catalog)
        _ = try await tree.start()
        _ = try await tree.browse([0, 0, 1])
        _ = try await tree.browse([0, 0, 2])
        let before = try #require(await tree.node(at: [0, 0]))
        catalog.remove("album:1")
        let update = try await tree.apply(CatalogDiff(removedContainers: ["album:1"], changedContainers: ["lib:albums"]))
        #expect(update.published.map(\.indexPath) == [[0, 0], [0, 0, 1]])
        #expect(update.cleared == [[0, 0, 2]])
        #expect(update.published.first { $0.indexPath == [0, 0, 1] }?.item?.identifier == "album:2")
        let after = try #require(await tree.node(at: [0, 0]))
        #expect(after.version > before.version)
        // An unchanged container named again publishes nothing.
        #expect(try await tree.apply(CatalogDiff(changedContainers: ["lib:songs"])).isEmpty)
        // A renamed section republishes itself and its parent's list.
        catalog.update(.container(ContentItem.Section.podcasts, title: "Shows"))
        let renamed = try await tree.apply(CatalogDiff(changedContainers: [ContentItem.rootIdentifier, ContentItem.Section.podcasts]))
        #expect(renamed.published.map(\.indexPath) == [[], [1]])
    }

    @Test("a new container within the upper levels is published; a saved position republishes the lists showing the item")
    func additionsAndProgress() async throws {
        let catalog = sampleCatalog()
        let tree = manager(catalog)
        _ = try await tree.start()
        catalog.add(.container("feed:2", title: "Another Show"), under: ContentItem.Section.podcasts)
        let added = try await tree.apply(CatalogDiff(addedContainers: ["feed:2"], changedContainers: [ContentItem.Section.podcasts]))
        #expect(added.published.map(\.indexPath) == [[1], [1, 1]])
        try await catalog.savePlaybackPosition(PlaybackPosition(elapsed: 300, duration: 600, updatedAt: 0), for: "episode:1")
        let progress = try await tree.apply(CatalogDiff(), progressChanged: ["episode:1"])
        #expect(progress.published.map(\.indexPath) == [[1, 0]])
        #expect(progress.published.first?.children[1].playbackProgress == 0.5)
    }

    @Test("a start that fails halfway leaves nothing recorded: once the catalog reads again, a change publishes the upper levels")
    func failedStartRecordsNothing() async throws {
        let catalog = sampleCatalog()
        let tree = manager(catalog)
        catalog.setUnreadable(["lib:songs"])
        await #expect(throws: InMemoryContentCatalog.ReadError(container: "lib:songs")) { try await tree.start() }
        #expect(await tree.publishedPaths.isEmpty)
        #expect(tree.publishedAnswer([], offset: nil, limit: nil) == nil)
        catalog.setUnreadable([])
        let update = try await tree.apply(CatalogDiff(changedContainers: [ContentItem.rootIdentifier]))
        #expect(update.published.map(\.indexPath) == [[], [0], [0, 0], [0, 1], [1], [1, 0]])
    }

    @Test("an index path resolves to its items, section first")
    func resolvesPaths() async throws {
        let tree = manager(sampleCatalog())
        _ = try await tree.start()
        let resolved = try #require(try await tree.resolve([0, 0, 2, 3]))
        #expect(resolved.identifiers == [ContentItem.Section.library, "lib:albums", "album:2", "track:2-3"])
        #expect(resolved.containerIdentifier == "album:2")
        #expect(try await tree.resolve([0, 0, 9]) == nil)
    }

    @Test("a context document is read strictly and keeps fields it lacks")
    func contextParsing() throws {
        let limits = try ContentLimits(context: [
            "contentLimitsEnforced": true, "enforcedContentItemsCount": 12, "enforcedContentTreeDepth": 3,
            "endpointAvailable": true,
        ])
        #expect(limits == ContentLimits(isEnforced: true, itemsCount: 12, treeDepth: 3))
        let off = try ContentLimits(context: ["contentLimitsEnforced": false], previous: limits)
        #expect(!off.isEnforced && off.itemsCount == 12 && off.cap(50) == 50)
        #expect(throws: ContentLimitsError.self) { try ContentLimits(context: ["enforcedContentTreeDepth": 0]) }
        #expect(throws: ContentLimitsError.self) { try ContentLimits(context: ["contentLimitsEnforced": "yes"]) }
    }
}
