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
            try AudioFixtures.writeTone(track, in: albumDirectory)
        }
        try AudioFixtures.writeCover(width: 64, height: 64, in: albumDirectory)
        try AudioFixtures.writeTone(
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
        #expect(try await database.search("tone 660", limit: 5).isEmpty)
    }

    @Test("TagLib reads composer, track and disc numbers and counts from FLAC, MP3 and MP4 as GStreamer tags them",
          arguments: ["flac", "mp3", "m4a"])
    func releaseTags(format: String) throws {
        let directory = try AudioFixtures.makeTemporaryDirectory("release-tags")
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = try AudioFixtures.writeTone(
            ToneTrack(fileName: "t.\(format)", frequency: 500, seconds: 1, title: "Tagged \(format)", trackNumber: 7,
                      trackCount: 9, discNumber: 2, discCount: 3, composer: "Composer"),
            in: directory)
        let tags = try #require(TagReader.read(path: url.path))
        #expect(tags.title == "Tagged \(format)")
        #expect(tags.composer == "Composer")
        #expect([tags.trackNumber, tags.trackCount, tags.discNumber, tags.discCount] == [7, 9, 2, 3])
    }

    @Test("TagLib reads tags, disc number and length to the millisecond from headers")
    func tagReader() throws {
        let directory = try AudioFixtures.makeTemporaryDirectory("tags")
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = try AudioFixtures.writeTone(
            ToneTrack(fileName: "t.ogg", frequency: 500, seconds: 2.5, title: "Tagged", artist: "Artist", album: "Album",
                      trackNumber: 7, trackCount: 9, discNumber: 2, discCount: 3, composer: "Composer", genre: "Ambient",
                      date: "2019"),
            in: directory)
        let tags = try #require(TagReader.read(path: url.path))
        #expect(tags == AudioTags(title: "Tagged", artist: "Artist", album: "Album", genre: "Ambient", year: 2019,
                                  trackNumber: 7, discNumber: 2, duration: 2.5, composer: "Composer", trackCount: 9,
                                  discCount: 3))
        try Data("not audio".utf8).write(to: directory.appendingPathComponent("fake.mp3"))
        #expect(TagReader.read(path: directory.appendingPathComponent("fake.mp3").path) == nil)
    }

    @Test("a file TagLib cannot read is read by GStreamer's discoverer; one neither can read keeps its file name")
    func discovererFallback() async throws {
        let music = try AudioFixtures.makeTemporaryDirectory("fallback")
        let temp = try TemporaryCatalog()
        defer {
            temp.remove()
            try? FileManager.default.removeItem(at: music)
        }
        // An Ogg file with a video stream before its Vorbis stream (a clip saved as .ogg): TagLib expects
        // Vorbis from the first page and gives up; GStreamer demuxes both streams.
        let misnamed = music.appendingPathComponent("clip.ogg")
        let (status, output) = try ToolRun.capture("gst-launch-1.0", [
            "-q", "oggmux", "name=mux", "!", "filesink", "location=\(misnamed.path)",
            "videotestsrc", "num-buffers=15", "!", "video/x-raw,width=64,height=48,framerate=10/1", "!", "theoraenc",
            "!", "mux.", "audiotestsrc", "num-buffers=150", "samplesperbuffer=441", "!",
            "audio/x-raw,rate=44100,channels=2", "!", "taginject", "tags=title=Misnamed,artist=Finder,album=Odd,track-number=(uint)4",
            "!", "audioconvert", "!", "vorbisenc", "!", "mux.",
        ])
        try #require(status == 0, "gst-launch failed: \(output)")
        #expect(TagReader.read(path: misnamed.path) == nil)
        let found = try #require(DiscovererTagReader.read(path: misnamed.path))
        #expect(found.title == "Misnamed" && found.artist == "Finder" && found.trackNumber == 4)
        #expect(abs((found.duration ?? 0) - 1.5) < 0.05)
        try Data(repeating: 0x42, count: 4096).write(to: music.appendingPathComponent("broken.mp3"))

        let database = try temp.open()
        guard case .updated = await CatalogRefresher(database: database).refresh(LocalFolderProvider(roots: [music]))
        else {
            Issue.record("scan did not update")
            return
        }
        let library = try await allChildren(database, of: ContentItem.Section.library)
        let songs = try await allChildren(database, of: library[2].identifier)
        #expect(songs.map(\.title) == ["broken", "Misnamed"])
        #expect(songs[1].artist == "Finder" && songs[1].albumTitle == "Odd" && songs[1].trackNumber == 4)
        #expect(songs[0].artist == "Unknown Artist" && songs[0].duration == nil)
    }
}
