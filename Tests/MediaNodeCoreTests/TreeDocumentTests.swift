import ContentTree
import MediaJSON
import MediaNodeTesting
import Testing

/// The tree's documents are written straight into bytes on the browse path; they must be exactly the
/// bytes the JSON value of the same node writes, or change detection and readers would see a difference.
@Suite("Tree documents")
struct TreeDocumentTests {
    @Test("a browsed node's document is byte for byte its JSON value: artwork, null subtitle, escapes, fractions")
    func documentMatchesJSONValue() async throws {
        let catalog = InMemoryContentCatalog()
        catalog.add(.container(ContentItem.Section.library, title: "Library"))
        catalog.add(ContentItem(identifier: "album:\"odd\"", title: "Ångström \\ \"quoted\"\n\ttabbed\u{1}",
                                subtitle: "Sub", artworkKey: "abc123", isContainer: true, isExplicitContent: true,
                                artworkFormat: ArtworkFormat(mimeType: "image/jpeg", width: 600, height: 400)),
                    under: ContentItem.Section.library)
        catalog.add(ContentItem(identifier: "t:1", title: "Plain", playbackProgress: 0.3333333333333333,
                                isPlayable: true, isStreamingContent: true), under: "album:\"odd\"")
        catalog.add(ContentItem(identifier: "t:2", title: "🎵 Emoji", playbackProgress: 1, isPlayable: true),
                    under: "album:\"odd\"")
        let tree = PlayableContentManager(catalog: catalog, configuration: ContentTreeConfiguration(publishedDepth: 1))
        _ = try await tree.start()
        for path in [IndexPath([0]), IndexPath([0, 0]), IndexPath([])] {
            guard case let .node(node, update, _) = try await tree.browse(path, offset: 0, limit: 7) else {
                Issue.record("no node at \(path)")
                continue
            }
            let topic: (String) -> String = { "artwork/\($0)" }
            #expect(update.document(for: node, artworkTopic: topic).bytes == node.json(artworkTopic: topic).jsonBytes)
            #expect(node.contentBytes(artworkTopic: topic) == node.content(artworkTopic: topic).jsonBytes)
        }
    }
}
