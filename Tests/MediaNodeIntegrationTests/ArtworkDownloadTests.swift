import Foundation
import MediaJSON
import MediaNodeTesting
import Testing

/// A catalog item whose artwork URL points at a misbehaving local HTTP server, playing a generated tone.
struct ArtworkFaultRig {
    let files: CatalogFileRig
    /// Holds the tone the catalog points at; removed by `stop`.
    let audio: URL
    let server: FaultHTTPServer
    let log: LogRecorder
    let identifier: String
    let artworkURL: URL
    var node: RunningNode { files.running }

    /// `serve` sets up what the server answers at `/cover.jpg`; the node gives up a download after `timeout`.
    static func start(timeout: Duration = .seconds(8), serve: (FaultHTTPServer, String) async -> Void) async throws
        -> ArtworkFaultRig {
        let server = try await FaultHTTPServer()
        await serve(server, "/cover.jpg")
        let audio = try AudioFixtures.makeTemporaryDirectory("artwork-audio")
        let tone = try await AudioFixtures.writeTone(
            ToneTrack(fileName: "song.ogg", frequency: 440, seconds: 20, title: "Tagged Title"), in: audio)
        let log = LogRecorder()
        let artworkURL = server.url("/cover.jpg")
        let files = try await CatalogFileRig.start(
            [.init(id: "song", title: "Song", live: false, uri: tone, fields: ["artwork": .string(artworkURL.absoluteString)])],
            artworkTimeout: timeout, logger: log.logger())
        return ArtworkFaultRig(
            files: files, audio: audio, server: server, log: log, identifier: files.identifiers["song"]!, artworkURL: artworkURL)
    }

    /// Plays the item; returns the first now playing that names it, and the log as it stood when that
    /// document arrived (the reply to playItem comes later, once audio plays).
    func playAndFirstNowPlaying() async throws -> (document: JSONValue, logThen: [String]) {
        let identifier = self.identifier
        let topic = node.topics.nowPlaying
        async let arrival = node.client.first(timeout: .seconds(15)) { message in
            message.topic == topic && (try? JSONValue(parsing: message.payload))?["identifier"] == .string(identifier)
        }
        let reply = try await files.play("song")
        let message = try await arrival
        let logThen = log.messages
        guard reply["status"] == "success" else { throw RigSetupError("playItem: \(reply.jsonString)") }
        return (try JSONValue(parsing: message.payload), logThen)
    }

    /// Every now playing published for the item so far.
    func documents() async -> [JSONValue] {
        await node.client.messages(on: node.topics.nowPlaying).compactMap { try? JSONValue(parsing: $0.payload) }
            .filter { $0["identifier"] == .string(identifier) }
    }

    func artworkMessages() async -> [String] {
        await node.client.received.map(\.topic).filter { $0.hasPrefix(node.topics.artwork("")) }
    }

    /// Requests that reached the server for the picture.
    func pictureRequests() async -> Int { await server.requests().filter { $0.path == "/cover.jpg" }.count }

    /// Pause and play again: new snapshots, which must not start the failed download again.
    func nudge() async throws {
        _ = try await node.send("pause")
        _ = try await node.waitForState("paused")
        _ = try await node.send("play")
        _ = try await node.waitForState("playing")
    }

    /// After a pause and a play (new snapshots), the item still shows no artwork, none was published, and
    /// the failed picture was not fetched again.
    func expectNoArtworkAfterNudge() async throws {
        try await nudge()
        try await Task.sleep(for: .milliseconds(500))
        #expect(await documents().allSatisfy { $0["artwork"] == nil })
        #expect(await artworkMessages().isEmpty)
        let pictureFetches = await pictureRequests()
        #expect(pictureFetches == 1, "the picture was fetched \(pictureFetches) times")
    }

    func stop() async {
        await files.stop()
        server.stop()
        try? FileManager.default.removeItem(at: audio)
    }
}

@Suite("Artwork downloads that go wrong never hold up or break now playing", .serialized)
struct ArtworkDownloadTests {
    @Test("a server that accepts and never answers: now playing goes out at once, the download times out with a log line, no artwork")
    func stalledDownload() async throws {
        let rig = try await ArtworkFaultRig.start(timeout: .seconds(3)) { server, path in
            await server.put(path, data: Data([0xFF, 0xD8, 0xFF]), contentType: "image/jpeg")
            await server.inject([.stall(seconds: 30), .stall(seconds: 30)], at: path)
        }
        let (first, logThen) = try await rig.playAndFirstNowPlaying()
        #expect(first["title"] == "Song" && first["artwork"] == nil)
        // It arrived before the download gave up: now playing did not wait for it.
        let gaveUp = "artwork of \(rig.identifier) not fetched from \(rig.artworkURL)"
        #expect(!logThen.contains { $0.contains(gaveUp) }, "now playing came only after the download gave up")
        let line = await rig.log.waitForLine(containing: gaveUp, "no answer within 3", timeout: .seconds(15))
        #expect(line != nil, "no timeout in the log: \(rig.log.messages.suffix(10))")
        await #expect(rig.server.requests().contains { $0.path == "/cover.jpg" && $0.status == 0 }, "the server never saw the request")
        try await rig.expectNoArtworkAfterNudge()
        #expect(await rig.node.nowPlaying?["state"] == "playing")
        await rig.stop()
    }

    @Test("garbage bytes served as image/jpeg leave no artwork key and say why in the log")
    func garbageDownload() async throws {
        let rig = try await ArtworkFaultRig.start { server, path in
            await server.put(path, data: Data((0..<5000).map { UInt8(($0 * 37 + 11) % 256) }), contentType: "image/jpeg")
        }
        let (first, _) = try await rig.playAndFirstNowPlaying()
        #expect(first["artwork"] == nil)
        let line = await rig.log.waitForLine(
            containing: "artwork of \(rig.identifier) from \(rig.artworkURL) is unusable", "not a readable image")
        #expect(line != nil, "no log line: \(rig.log.messages.suffix(10))")
        try await rig.expectNoArtworkAfterNudge()
        await rig.stop()
    }

    @Test("a 404 leaves no artwork key, logs the status once and is not fetched again while the item plays")
    func missingDownload() async throws {
        let rig = try await ArtworkFaultRig.start { _, _ in }
        let (first, _) = try await rig.playAndFirstNowPlaying()
        #expect(first["artwork"] == nil)
        let line = await rig.log.waitForLine(containing: "artwork of \(rig.identifier) not fetched from \(rig.artworkURL)", "HTTP 404")
        #expect(line != nil, "no log line: \(rig.log.messages.suffix(10))")
        try await rig.expectNoArtworkAfterNudge()
        #expect(rig.log.lines(containing: "HTTP 404").count == 1)
        await rig.stop()
    }

    @Test("a huge picture (3000 x 3000 noise, megabytes of JPEG) is scaled to 600 px and published within 256 KiB, after now playing")
    func hugeDownload() async throws {
        let pictures = try AudioFixtures.makeTemporaryDirectory("huge-artwork")
        defer { try? FileManager.default.removeItem(at: pictures) }
        let huge = try await Data(contentsOf: AudioFixtures.writeCover(named: "huge.jpg", width: 3000, height: 3000, pattern: 1, in: pictures))
        #expect(huge.count > 2 << 20, "the fixture is only \(huge.count) bytes")
        let rig = try await ArtworkFaultRig.start { server, path in
            await server.put(path, data: huge, contentType: "image/jpeg")
        }
        let (first, _) = try await rig.playAndFirstNowPlaying()
        #expect(first["artwork"] == nil)
        let identifier = rig.identifier
        let withArtwork = try await rig.node.waitUntil(rig.node.topics.nowPlaying, "now playing with artwork", timeout: 20) {
            $0["identifier"] == .string(identifier) && $0["artwork"] != nil
        }
        let artwork = try #require(withArtwork["artwork"])
        #expect(artwork["width"] == 600 && artwork["height"] == 600 && artwork["mimeType"] == "image/jpeg")
        let topic = try #require(artwork["topic"]?.stringValue)
        // A dashboard that connects later finds the picture retained.
        let late = try TestMQTTClient(brokerURL: rig.node.broker.url)
        try await late.connect()
        try await late.subscribe(topic)
        let picture = try await late.first(timeout: .seconds(5)) { $0.topic == topic }
        await late.disconnect()
        #expect(picture.retain && picture.payload.starts(with: [0xFF, 0xD8, 0xFF]))
        #expect(picture.payload.count <= 256 * 1024, "published \(picture.payload.count) bytes")
        #expect(rig.log.lines(containing: "artwork of \(identifier)").isEmpty, "\(rig.log.lines(containing: "artwork"))")
        // Cached in the catalog as scaled, so the tree shows it too and no later play downloads it again.
        let item = try await rig.node.send("contentItem", #""identifier":"\#(identifier)""#)
        let treeTopic = try #require(item["data"]?["artwork"]?["topic"]?.stringValue, "\(item.jsonString)")
        let cached = try await rig.node.client.first(timeout: .seconds(10)) { $0.topic == treeTopic }
        #expect(cached.payload == picture.payload)
        await #expect(rig.pictureRequests() == 1)
        await rig.stop()
    }
}
