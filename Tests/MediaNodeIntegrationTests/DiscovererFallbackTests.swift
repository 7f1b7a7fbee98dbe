import CatalogStore
import ContentTree
import Foundation
import MediaNode
import MediaNodeTesting
import Testing

/// The library scanner's fallback, as the daemon wires it: GStreamer's discoverer behind the catalog's
/// `TagReader` seam, for files TagLib cannot read.
@Suite("Tags TagLib cannot read come from GStreamer's discoverer")
struct DiscovererFallbackTests {
    @Test("a file TagLib cannot read is read by GStreamer's discoverer; one neither can read keeps its file name")
    func discovererFallback() async throws {
        let directory = try AudioFixtures.makeTemporaryDirectory("fallback")
        defer { try? FileManager.default.removeItem(at: directory) }
        let music = directory.appendingPathComponent("music")
        try FileManager.default.createDirectory(at: music, withIntermediateDirectories: true)
        // An Ogg file with a video stream before its Vorbis stream (a clip saved as .ogg): TagLib expects
        // Vorbis from the first page and gives up; GStreamer demuxes both streams.
        let misnamed = music.appendingPathComponent("clip.ogg")
        let (status, output) = try await ToolRun.capture("gst-launch-1.0", [
            "-q", "oggmux", "name=mux", "!", "filesink", "location=\(misnamed.path)",
            "videotestsrc", "num-buffers=15", "!", "video/x-raw,width=64,height=48,framerate=10/1", "!", "theoraenc",
            "!", "mux.", "audiotestsrc", "num-buffers=150", "samplesperbuffer=441", "!",
            "audio/x-raw,rate=44100,channels=2", "!", "taginject", "tags=title=Misnamed,artist=Finder,album=Odd,track-number=(uint)4",
            "!", "audioconvert", "!", "vorbisenc", "!", "mux.",
        ])
        try #require(status == 0, "gst-launch failed: \(output)")
        #expect(TagLibReader.read(path: misnamed.path) == nil)
        let found = try #require(DiscovererTagReader().read(path: misnamed.path))
        #expect(found.title == "Misnamed" && found.artist == "Finder" && found.trackNumber == 4)
        #expect(abs((found.duration ?? 0) - 1.5) < 0.05)
        try Data(repeating: 0x42, count: 4096).write(to: music.appendingPathComponent("broken.mp3"))

        let database = try CatalogDatabase(path: directory.appendingPathComponent("catalog.sqlite").path)
        defer { try? database.close() }
        let provider = LocalFolderProvider(roots: [music], fallbackReader: DiscovererTagReader())
        guard case .updated = await CatalogRefresher(database: database).refresh(provider) else {
            Issue.record("scan did not update")
            return
        }
        let library = try await database.children(of: ContentItem.Section.library, offset: 0, limit: 10).items
        let songs = try await database.children(of: library[2].identifier, offset: 0, limit: 10).items
        #expect(songs.map(\.title) == ["broken", "Misnamed"])
        #expect(songs[1].artist == "Finder" && songs[1].albumTitle == "Odd" && songs[1].trackNumber == 4)
        #expect(songs[0].artist == "Unknown Artist" && songs[0].duration == nil)
    }

    @Test("without a fallback reader, a file TagLib cannot read is listed under its file name")
    func noFallback() async throws {
        let directory = try AudioFixtures.makeTemporaryDirectory("nofallback")
        defer { try? FileManager.default.removeItem(at: directory) }
        let music = directory.appendingPathComponent("music")
        try FileManager.default.createDirectory(at: music, withIntermediateDirectories: true)
        try Data(repeating: 0x42, count: 4096).write(to: music.appendingPathComponent("odd.ogg"))
        let database = try CatalogDatabase(path: directory.appendingPathComponent("catalog.sqlite").path)
        defer { try? database.close() }
        _ = await CatalogRefresher(database: database).refresh(LocalFolderProvider(roots: [music]))
        let library = try await database.children(of: ContentItem.Section.library, offset: 0, limit: 10).items
        let songs = try await database.children(of: library[2].identifier, offset: 0, limit: 10).items
        #expect(songs.map(\.title) == ["odd"])
    }
}
