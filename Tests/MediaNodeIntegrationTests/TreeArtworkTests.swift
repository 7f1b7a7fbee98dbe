import CatalogStore
import Foundation
import MediaJSON
import MediaNodeTesting
import Testing

/// An item's `artwork` in the content tree names a topic; a head unit subscribes to it for the picture.
@Suite("The pictures the content tree names are published", .serialized)
struct TreeArtworkTests {
    @Test("every artwork topic of a published node holds its picture, retained; a cover over 256 KiB is scaled down first")
    func artworkTopicsHoldPictures() async throws {
        let directory = try AudioFixtures.makeTemporaryDirectory("tree-artwork")
        let library = try await ContentRig.makeLibrary(in: directory)
        let small = try await Data(contentsOf: AudioFixtures.writeCover(
            width: 300, height: 300, in: library.appendingPathComponent("Alpha")))
        let huge = try await Data(contentsOf: AudioFixtures.writeCover(
            width: 3000, height: 3000, pattern: 1, in: library.appendingPathComponent("Beta")))
        #expect(huge.count > 1 << 20, "the fixture is only \(huge.count) bytes")
        let rig = try await ContentRig.start(directory: directory)

        let albums = try #require(try await rig.waitForNode([0, 1]) { $0?["children"]?[1] != nil })
        let topics = (0..<2).compactMap { albums["children"]?[$0]?["artwork"]?["topic"]?.stringValue }
        #expect(topics.count == 2 && Set(topics).count == 2, "\(albums.jsonString)")
        for topic in topics { _ = try await rig.client.first(timeout: .seconds(30)) { $0.topic == topic } }
        // A head unit that subscribes later finds each picture retained.
        let late = try TestMQTTClient(brokerURL: rig.broker.url)
        try await late.connect()
        var pictures: [[UInt8]] = []
        for topic in topics {
            try await late.subscribe(topic)
            let message = try await late.first(timeout: .seconds(10)) { $0.topic == topic }
            #expect(message.retain)
            pictures.append(message.payload)
        }
        await late.disconnect()
        #expect(pictures.first == [UInt8](small), "Alpha's cover is published as it is")
        let scaled = try #require(pictures.last)
        #expect(scaled.starts(with: [0xFF, 0xD8, 0xFF]) && scaled.count <= 256 * 1024, "\(scaled.count) bytes")
        // A track lists its album's picture: the same topic, published once.
        let tracks = try await rig.request("browse", #"{"id":"alpha","indexPath":[0,1,0]}"#, id: "alpha")
        #expect(tracks["data"]?["children"]?[0]?["artwork"]?["topic"]?.stringValue == topics.first)
        let sent = await rig.client.messages(on: topics[0]).count
        #expect(sent == 1, "\(topics[0]) went out \(sent) times")
        await rig.stop()
    }

    @Test("contentItem's artwork topic holds the picture even for an item no published node lists")
    func contentItemArtwork() async throws {
        let directory = try AudioFixtures.makeTemporaryDirectory("item-artwork")
        let library = try await ContentRig.makeLibrary(in: directory)
        _ = try await AudioFixtures.writeCover(width: 200, height: 200, pattern: 2, in: library.appendingPathComponent("Beta"))
        // Only the root is published, so no node lists Beta's tracks.
        let rig = try await ContentRig.start(directory: directory, content: .init(publishedDepth: 0))
        let albums = try await rig.request("browse", #"{"id":"a","indexPath":[0,1],"limit":1}"#, id: "a")
        #expect(albums["status"] == "success", "\(albums.jsonString)")
        let beta = try await rig.request("browse", #"{"id":"b","indexPath":[0,1,1]}"#, id: "b")
        let track = try #require(beta["data"]?["children"]?[0]?["identifier"]?.stringValue)
        let item = try await rig.request("contentItem", #"{"id":"c","identifier":"\#(track)"}"#, id: "c")
        let topic = try #require(item["data"]?["artwork"]?["topic"]?.stringValue)
        let picture = try await rig.client.first(timeout: .seconds(20)) { $0.topic == topic }
        #expect(picture.payload.starts(with: [0xFF, 0xD8, 0xFF]))
        await rig.stop()
    }

    @Test("a tree item's artwork gives topic, mimeType, width and height, as now playing does, true of the picture on the topic")
    func artworkReferencesCarryTypeAndSize() async throws {
        let directory = try AudioFixtures.makeTemporaryDirectory("artwork-format")
        let library = try await ContentRig.makeLibrary(in: directory)
        _ = try await AudioFixtures.writeCover(
            named: "cover.png", width: 300, height: 200, in: library.appendingPathComponent("Alpha"))
        _ = try await AudioFixtures.writeCover(width: 3000, height: 3000, pattern: 1, in: library.appendingPathComponent("Beta"))
        let rig = try await ContentRig.start(directory: directory)
        let albums = try #require(try await rig.waitForNode([0, 1]) { $0?["children"]?[1] != nil })
        // Alpha's PNG is published as it is; Beta's 3000 px JPEG is over 256 KiB and published scaled down.
        let expected: [(mimeType: String, width: Int, height: Int)] = [("image/png", 300, 200), ("image/jpeg", 600, 600)]
        for (index, want) in expected.enumerated() {
            let artwork = try #require(albums["children"]?[index]?["artwork"], "\(albums.jsonString)")
            #expect(artwork["mimeType"] == .string(want.mimeType), "\(artwork.jsonString)")
            #expect(artwork["width"] == .number(Double(want.width)), "\(artwork.jsonString)")
            #expect(artwork["height"] == .number(Double(want.height)), "\(artwork.jsonString)")
            let topic = try #require(artwork["topic"]?.stringValue)
            let picture = try await rig.client.first(timeout: .seconds(30)) { $0.topic == topic }
            let size = try #require(ImageSize.of(Data(picture.payload)), "\(topic) holds no JPEG or PNG")
            #expect(size.width == want.width && size.height == want.height, "\(topic) holds \(size)")
            #expect(ArtworkBlob.sniffMimeType(Data(picture.payload)) == want.mimeType)
        }
        // contentItem names the same picture the same way.
        let tracks = try await rig.request("browse", #"{"id":"alpha","indexPath":[0,1,0]}"#, id: "alpha")
        let track = try #require(tracks["data"]?["children"]?[0]?["identifier"]?.stringValue)
        let item = try await rig.request("contentItem", #"{"id":"item","identifier":"\#(track)"}"#, id: "item")
        #expect(item["data"]?["artwork"] == albums["children"]?[0]?["artwork"], "\(item.jsonString)")
        await rig.stop()
    }
}
