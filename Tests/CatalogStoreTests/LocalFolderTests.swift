import CatalogStore
import ContentTree
import Foundation
import MediaNodeTesting
import Testing

@Suite("local folders")
struct LocalFolderTests {
    @Test("a music folder becomes Artists, Albums, Songs and Genres, and a rescan drops removed files")
    func scanAndRescan() async throws {
        let music = try AudioFixtures.makeTemporaryDirectory("music")
        let temp = try TemporaryCatalog()
        defer {
            temp.remove()
            try? FileManager.default.removeItem(at: music)
        }
        let albumDirectory = music.appendingPathComponent("Band/First")
        for track in AudioFixtures.album(count: 3, seconds: 2, album: "First", artist: "Band") {
            var track = track
            track.genre = "Rock"
            try await AudioFixtures.writeTone(track, in: albumDirectory)
        }
        try await AudioFixtures.writeCover(width: 64, height: 64, in: albumDirectory)
        try await AudioFixtures.writeTone(
            ToneTrack(fileName: "Solo/single.flac", frequency: 300, seconds: 1, title: "Single", artist: "Solo Act",
                      album: "Singles", genre: "Jazz", date: "2021"),
            in: music)

        let database = try temp.open()
        let refresher = CatalogRefresher(database: database)
        let provider = LocalFolderProvider(roots: [music])
        guard case let .updated(diff) = await refresher.refresh(provider) else {
            Issue.record("first scan did not update")
            return
        }
        #expect(diff.addedItems > 0)

        let library = try await allChildren(database, of: ContentItem.Section.library)
        #expect(library.map(\.title) == ["Artists", "Albums", "Songs", "Genres"])
        let artists = try await allChildren(database, of: library[0].identifier)
        #expect(artists.map(\.title) == ["Band", "Solo Act"])
        let bandAlbums = try await allChildren(database, of: artists[0].identifier)
        #expect(bandAlbums.map(\.title) == ["First"])
        let album = bandAlbums[0]
        #expect(album.artworkKey != nil)
        let tracks = try await allChildren(database, of: album.identifier)
        #expect(tracks.map(\.title) == ["Tone 440", "Tone 660", "Tone 880"])
        #expect(tracks.map(\.trackNumber) == [1, 2, 3])
        #expect(tracks.allSatisfy { $0.duration == 2 && $0.artist == "Band" && $0.albumTitle == "First" })
        #expect(tracks.allSatisfy { $0.uri?.hasPrefix("file://") == true && $0.artworkKey == album.artworkKey })
        #expect(tracks[0].containerIdentifier == album.identifier && tracks[0].genre == "Rock")
        let cover = try #require(try await database.artwork(key: album.artworkKey!))
        #expect(cover.mimeType == "image/jpeg" && cover.data.starts(with: [0xFF, 0xD8]))
        let songs = try await allChildren(database, of: library[2].identifier)
        #expect(songs.map(\.title) == ["Single", "Tone 440", "Tone 660", "Tone 880"])
        #expect(songs[0].releaseDate == "2021")
        let genres = try await allChildren(database, of: library[3].identifier)
        #expect(genres.map(\.title) == ["Jazz", "Rock"])
        // The scan is searchable at once: the artist by name first, then their album and tracks; the lists
        // and the genres are ways of browsing, not results.
        let band = try await database.search("band", limit: 10)
        #expect(band.items.map(\.identifier) == [artists[0].identifier, album.identifier] + tracks.map(\.identifier))
        #expect(band.total == 5)
        #expect(try await database.search("rock", limit: 10).total == 0)
        #expect(try await database.search("songs", limit: 10).total == 0)

        // Nothing changed: nothing is written.
        #expect(await refresher.refresh(provider) == .unchanged)

        // One file removed: it disappears, identifiers of the rest stay.
        try FileManager.default.removeItem(at: albumDirectory.appendingPathComponent("02 Tone 660.ogg"))
        guard case let .updated(rescan) = await refresher.refresh(provider) else {
            Issue.record("rescan did not update")
            return
        }
        #expect(rescan.removedItems == 1 && rescan.addedItems == 0)
        #expect(rescan.changedContainers.contains(album.identifier))
        let after = try await allChildren(database, of: album.identifier)
        #expect(after.map(\.identifier) == [tracks[0].identifier, tracks[2].identifier])
        #expect(try await database.search("tone 660", limit: 5).total == 0)
    }

    @Test("TagLib reads composer, track and disc numbers and counts from FLAC, MP3 and MP4 as GStreamer tags them",
          arguments: ["flac", "mp3", "m4a"])
    func releaseTags(format: String) async throws {
        let directory = try AudioFixtures.makeTemporaryDirectory("release-tags")
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = try await AudioFixtures.writeTone(
            ToneTrack(fileName: "t.\(format)", frequency: 500, seconds: 1, title: "Tagged \(format)", trackNumber: 7,
                      trackCount: 9, discNumber: 2, discCount: 3, composer: "Composer"),
            in: directory)
        let tags = try #require(TagLibReader.read(path: url.path))
        #expect(tags.title == "Tagged \(format)")
        #expect(tags.composer == "Composer")
        #expect([tags.trackNumber, tags.trackCount, tags.discNumber, tags.discCount] == [7, 9, 2, 3])
    }

    @Test("TagLib reads tags, disc number and length to the millisecond from headers")
    func tagReader() async throws {
        let directory = try AudioFixtures.makeTemporaryDirectory("tags")
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = try await AudioFixtures.writeTone(
            ToneTrack(fileName: "t.ogg", frequency: 500, seconds: 2.5, title: "Tagged", artist: "Artist", album: "Album",
                      trackNumber: 7, trackCount: 9, discNumber: 2, discCount: 3, composer: "Composer", genre: "Ambient",
                      date: "2019"),
            in: directory)
        let tags = try #require(TagLibReader.read(path: url.path))
        #expect(tags == AudioTags(title: "Tagged", artist: "Artist", album: "Album", genre: "Ambient", year: 2019,
                                  trackNumber: 7, discNumber: 2, duration: 2.5, composer: "Composer", trackCount: 9,
                                  discCount: 3))
        try Data("not audio".utf8).write(to: directory.appendingPathComponent("fake.mp3"))
        #expect(TagLibReader.read(path: directory.appendingPathComponent("fake.mp3").path) == nil)
    }
}
