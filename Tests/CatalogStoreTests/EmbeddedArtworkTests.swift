import CatalogStore
import ContentTree
import Foundation
import MediaNodeTesting
import Testing

@Suite("embedded artwork")
struct EmbeddedArtworkTests {
    /// A distinct JPEG per pattern, as bytes.
    func picture(pattern: Int, in directory: URL) async throws -> Data {
        let url = try await AudioFixtures.writeCover(
            named: ".picture-\(pattern).jpg", width: 48, height: 48, pattern: pattern, in: directory)
        defer { try? FileManager.default.removeItem(at: url) }
        return try Data(contentsOf: url)
    }

    @Test("a track's embedded front cover is its artwork; a folder cover applies to the tracks without one")
    func embeddedBeforeFolderCover() async throws {
        let music = try AudioFixtures.makeTemporaryDirectory("embedded")
        let temp = try TemporaryCatalog()
        defer {
            temp.remove()
            try? FileManager.default.removeItem(at: music)
        }
        let covered = music.appendingPathComponent("Band/Covered")
        let coveredTracks = AudioFixtures.album(count: 2, seconds: 1, album: "Covered", artist: "Band")
        let first = try await AudioFixtures.writeTone(coveredTracks[0], in: covered)
        try await AudioFixtures.writeTone(coveredTracks[1], in: covered)
        let folderCover = try await Data(contentsOf: AudioFixtures.writeCover(width: 48, height: 48, pattern: 0, in: covered))
        // A back cover before the front cover: the front one is chosen whatever the order.
        let back = try await picture(pattern: 2, in: music)
        let front = try await picture(pattern: 1, in: music)
        try await AudioFixtures.embedPicture(back, type: .backCover, in: first)
        try await AudioFixtures.embedPicture(front, type: .frontCover, in: first)

        // No cover file: the album shows the picture of its first track that has one.
        let bare = music.appendingPathComponent("Band/Bare")
        let bareTracks = AudioFixtures.album(count: 2, seconds: 1, album: "Bare", artist: "Band", baseFrequency: 300)
        try await AudioFixtures.writeTone(bareTracks[0], in: bare)
        let second = try await AudioFixtures.writeTone(bareTracks[1], in: bare)
        let onlyPicture = try await picture(pattern: 4, in: music)
        try await AudioFixtures.embedPicture(onlyPicture, type: .other, in: second)

        let read = try #require(TagLibReader.readWithArtwork(path: first.path))
        #expect(read.artwork?.data == front && read.tags.title == "Tone 440")
        #expect(TagLibReader.readWithArtwork(path: covered.appendingPathComponent(coveredTracks[1].fileName).path)?
            .artwork == nil)

        let database = try temp.open()
        let refresher = CatalogRefresher(database: database)
        let provider = LocalFolderProvider(roots: [music])
        guard case .updated = await refresher.refresh(provider) else {
            Issue.record("scan did not update")
            return
        }
        let library = try await allChildren(database, of: ContentItem.Section.library)
        let albums = try await allChildren(database, of: library[1].identifier)
        #expect(albums.map(\.title) == ["Bare", "Covered"])

        let coveredAlbum = albums[1]
        let coveredItems = try await allChildren(database, of: coveredAlbum.identifier)
        #expect(try await storedBytes(database, coveredAlbum.artworkKey) == folderCover)
        #expect(try await storedBytes(database, coveredItems[0].artworkKey) == front)
        #expect(try await storedBytes(database, coveredItems[1].artworkKey) == folderCover)

        let bareAlbum = albums[0]
        let bareItems = try await allChildren(database, of: bareAlbum.identifier)
        #expect(try await storedBytes(database, bareAlbum.artworkKey) == onlyPicture)
        #expect(bareItems.map(\.artworkKey) == [bareAlbum.artworkKey, bareAlbum.artworkKey])
        #expect(try await database.artwork(key: ArtworkBlob(data: back).key) == nil)

        // Unchanged files are not read again, and their pictures stay.
        #expect(await refresher.refresh(provider) == .unchanged)
        try database.close()
        let reopened = try temp.open()
        let again = try await allChildren(reopened, of: coveredAlbum.identifier)
        #expect(again.map(\.artworkKey) == coveredItems.map(\.artworkKey))
        #expect(try await storedBytes(reopened, again[0].artworkKey) == front)
    }

    func storedBytes(_ database: CatalogDatabase, _ key: String?) async throws -> Data? {
        guard let key else { return nil }
        let blob = try await database.artwork(key: key)
        #expect(blob?.mimeType == "image/jpeg")
        return blob?.data
    }
}
