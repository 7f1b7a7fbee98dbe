import Foundation
import MPRIS
import MediaJSON
import MediaNode
import MediaNodeTesting
import Testing

/// Now playing names the catalog's picture in an item's first message, before its bytes are on its topic; MPRIS
/// shows a picture as a file of those bytes, so it must look again when they arrive.
@Suite("MPRIS and a new album's cover", .ownThreads)
struct MPRISArtworkTests {
    @Test("paused on another album's track, its cover reaches Metadata's artUrl once its bytes are out, with now playing unchanged since")
    func coverOfAnotherAlbum() async throws {
        let daemon = try await DBusDaemon()
        let library = try await ToneLibrary("mpris-covers", tones: [])
        var files: [URL] = []
        for (index, album) in ["Alpha", "Beta"].enumerated() {
            let folder = library.library.appendingPathComponent(album)
            for track in AudioFixtures.album(count: 2, seconds: 20, album: album, baseFrequency: 440 + 440 * index) {
                files.append(try await AudioFixtures.writeTone(track, in: folder))
            }
            // Two different pictures, each scaled again when published (--artwork-size 48 below): the bytes
            // of the second follow its first now playing by the time that takes.
            try await AudioFixtures.writeCover(width: 600, height: 600, pattern: index, in: folder)
        }
        let node = try await library.start(configure: { configuration in
            configuration.mpris = .address(daemon.address)
            configuration.mprisArtworkDirectory = library.directory.appendingPathComponent("mpris-artwork").path
            configuration.artworkSize = 48
        })
        let rig = MPRISRig(daemon: daemon, library: library, node: node, tools: DBusTools(address: daemon.address))
        try await rig.waitUntilRegistered()
        _ = try await node.waitUntil(node.topics.nowPlaying, "the first album's cover", timeout: 15) {
            $0["state"] == "paused" && $0["artwork"] != nil
        }

        // The queue holds the files in path order, paused at the first: the next but one is the second album's.
        // Paused, nothing else changes now playing once it names the new item, however late the bytes come.
        let beta = library.identifier(of: files[2])
        for _ in 0..<2 { #expect(try await node.send("nextTrack")["status"] == "success") }
        let nowPlaying = try await node.waitUntil(node.topics.nowPlaying, "the second album's first track", timeout: 10) {
            $0["identifier"]?.stringValue == beta
        }
        let topic = try #require(nowPlaying["artwork"]?["topic"]?.stringValue, "\(nowPlaying.jsonString)")
        var published: [UInt8]?
        let deadline = ContinuousClock.now + .seconds(10)
        while published == nil, ContinuousClock.now < deadline {
            published = await node.client.latest(on: topic)?.payload
            if published == nil { try await Task.sleep(for: .milliseconds(20)) }
        }
        let picture = try #require(published, "the cover's bytes never reached \(topic)")
        // Time for MPRIS to look; then one read, as a client that follows PropertiesChanged knows it (no polling).
        try await Task.sleep(for: .milliseconds(500))
        let metadata = try await rig.property(MPRISNames.player, "Metadata")
        let art = metadata.components(separatedBy: "'mpris:artUrl': <'").dropFirst().first?.prefix { $0 != "'" }
        let file = try #require(art.flatMap { URL(string: String($0)) }, "no artUrl in \(metadata)")
        #expect(try [UInt8](Data(contentsOf: file)) == picture, "the file holds the picture now playing points at")
        await rig.stop()
    }
}
