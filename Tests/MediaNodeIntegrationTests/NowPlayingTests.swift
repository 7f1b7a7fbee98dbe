import Foundation
import GStreamerAudio
import MQTTTransport
import MediaJSON
import MediaNode
import MediaNodeTesting
import Testing

/// A node with a real GStreamer engine rendering to a WAV file, over a generated library (and cover).
struct PlayingNode {
    let running: RunningNode
    let library: URL
    let wav: URL
    var broker: MosquittoBroker { running.broker }
    var client: TestMQTTClient { running.client }
    var topics: TopicLayout { running.topics }

    static func start(tracks: [ToneTrack], cover: (width: Int, height: Int)? = nil, coverBytes: [UInt8]? = nil)
        async throws -> PlayingNode {
        let directory = try AudioFixtures.makeTemporaryDirectory("nowplaying")
        let library = directory.appendingPathComponent("music")
        for track in tracks { try await AudioFixtures.writeTone(track, in: library) }
        if let cover { try await AudioFixtures.writeCover(named: "cover.png", width: cover.width, height: cover.height, in: library) }
        if let coverBytes { FileManager.default.createFile(atPath: library.appendingPathComponent("cover.jpg").path, contents: Data(coverBytes)) }
        let wav = directory.appendingPathComponent("output.wav")
        let running = try await RunningNode.start(libraries: [library.path], sink: "wav:\(wav.path)")
        return PlayingNode(running: running, library: directory, wav: wav)
    }

    func command(_ name: String, _ payload: String = "{}") async throws -> JSONValue {
        let id = UUID().uuidString
        var body = (try? JSONValue(parsing: payload).objectValue) ?? [:]
        body["id"] = .string(id)
        try await client.publish(topics.command(name), JSONValue.object(body).jsonString)
        let reply = try await client.first(timeout: .seconds(15)) { message in
            message.topic == topics.result && (try? JSONValue(parsing: message.payload))?["id"] == .string(id)
        }
        return try JSONValue(parsing: reply.payload)
    }

    /// The first now-playing document (already received or arriving) that satisfies `matches`.
    func nowPlaying(timeout: Duration = .seconds(15), where matches: @escaping @Sendable (JSONValue) -> Bool)
        async throws -> JSONValue {
        let topic = topics.nowPlaying
        let message = try await client.first(timeout: timeout) { message in
            message.topic == topic && (try? JSONValue(parsing: message.payload)).map(matches) == true
        }
        return try JSONValue(parsing: message.payload)
    }

    /// Seconds rendered so far, from the WAV's size alone: quick enough to take right around a request.
    func renderedSecondsBySize() -> Double {
        let size = (try? FileManager.default.attributesOfItem(atPath: wav.path)[.size] as? Int) ?? 44
        return Double(max(0, size - 44)) / (44_100 * 4)
    }

    func nowPlayingDocuments() async -> [JSONValue] {
        await client.messages(on: topics.nowPlaying).compactMap { try? JSONValue(parsing: $0.payload) }
    }

    func stop() async {
        await running.stop()
        try? FileManager.default.removeItem(at: library)
    }
}

@Suite("Now playing against a real broker and real GStreamer", .serialized)
struct NowPlayingTests {
    @Test("steady playback publishes at most one now-playing message in 10 s, and the extrapolated position matches the audio")
    func steadyPlaybackIsQuietAndExtrapolates() async throws {
        let running = try await PlayingNode.start(tracks: [ToneTrack(fileName: "a.ogg", frequency: 440, seconds: 40, title: "Steady")],
                                                  cover: (300, 300))
        #expect(try await running.command("play")["status"] == "success")
        // Settle: tags, duration and artwork arrive in the first moments and each is a real change.
        _ = try await running.nowPlaying { $0["state"] == "playing" && $0["artwork"] != nil && $0["playbackDuration"] != nil }
        try await Task.sleep(for: .seconds(1))
        let before = await running.nowPlayingDocuments().count
        var errors: [Double] = []
        var samples: [String] = []
        for _ in 0..<10 {
            try await Task.sleep(for: .seconds(1))
            let latest = await running.nowPlayingDocuments().last!
            // Read the file, then take the time at once: parsing a growing WAV takes long enough in a
            // debug build to skew the comparison by itself.
            let bytes = try Data(contentsOf: running.wav)
            let now = Date().timeIntervalSince1970
            let predicted = latest["elapsedPlaybackTime"]!.numberValue!
                + (now - latest["timestamp"]!.numberValue!) * latest["playbackRate"]!.numberValue!
            let rendered = try WAVFile(bytes: [UInt8](bytes)).duration
            errors.append(abs(predicted - rendered))
            samples.append(String(format: "%+.3f", predicted - rendered))
        }
        let documents = await running.nowPlayingDocuments()
        let published = documents.count - before
        #expect(published <= 1, "steady playback published \(published) now-playing messages in 10 s: \(documents.suffix(published + 1).map(\.jsonString))")
        let sorted = errors.sorted()
        #expect(sorted[sorted.count / 2] < 0.05, "median |predicted - rendered| = \(sorted[sorted.count / 2]) s; predicted - rendered: \(samples); documents: \(documents.suffix(3).map(\.jsonString))")
        #expect(sorted.last! < 0.25, "worst |predicted - rendered| = \(sorted.last!) s: \(samples)")
        await running.stop()
    }

    @Test("now playing's first message carries the cover the scan scaled to 600 px, on the content tree's topic for it, at most 256 KiB")
    func artworkInFirstMessage() async throws {
        let running = try await PlayingNode.start(tracks: [ToneTrack(fileName: "a.ogg", frequency: 440, seconds: 6, title: "Cover")],
                                                  cover: (2000, 1500))
        // The queue is prepared at start: its first now playing names the picture, scaled once at the scan.
        let first = try await running.nowPlaying { $0["identifier"] != nil }
        let artwork = try #require(first["artwork"], "\(first.jsonString)")
        #expect(artwork["mimeType"] == "image/jpeg")
        #expect(artwork["width"] == 600)
        #expect(artwork["height"] == 450)
        let topic = try #require(artwork["topic"]?.stringValue)
        // One picture, one topic: the one the content tree names for the item, keyed by the SHA-256 of the
        // catalog's copy.
        let identifier = try #require(first["identifier"]?.stringValue)
        let item = try await running.running.send("contentItem", #""identifier":"\#(identifier)""#)
        #expect(item["data"]?["artwork"]?["topic"]?.stringValue == topic, "\(item.jsonString)")
        let key = String(topic.dropFirst(running.topics.artwork("").count))
        #expect(key.count == 64 && key.allSatisfy(\.isHexDigit), "key \(key)")
        // A dashboard that connects later still finds the picture, retained.
        let late = try TestMQTTClient(brokerURL: running.broker.url)
        try await late.connect()
        try await late.subscribe(topic)
        let picture = try await late.first { $0.topic == topic }
        await late.disconnect()
        #expect(picture.retain)
        #expect(picture.payload.starts(with: [0xFF, 0xD8, 0xFF]))
        #expect(picture.payload.count <= 256 * 1024)
        await running.stop()
    }

    @Test("another track of the album shows its cover in its first message, and so does another album's track, on the tree's topic for it")
    func albumCoversOnTrackChanges() async throws {
        let directory = try AudioFixtures.makeTemporaryDirectory("album-change")
        defer { try? FileManager.default.removeItem(at: directory) }
        let music = directory.appendingPathComponent("music")
        var files: [URL] = []
        for (index, (album, tracks)) in [("First Album", 2), ("Second Album", 1)].enumerated() {
            let folder = music.appendingPathComponent(album)
            for track in 0..<tracks {
                files.append(try await AudioFixtures.writeTone(
                    ToneTrack(fileName: "track\(track).ogg", frequency: 440 + 220 * index + 110 * track, seconds: 20,
                              title: "\(album) \(track)", album: album),
                    in: folder))
            }
            try await AudioFixtures.writeCover(named: "cover.png", width: 640, height: 640, pattern: index, in: folder)
        }
        let running = try await RunningNode.start(libraries: [music.path], sink: "fake")
        let topic = running.topics.nowPlaying
        let identifiers = files.map { LibraryCatalog.trackIdentifier(path: $0.path, libraries: [music.path]) }
        /// The now-playing documents of `identifier` received since the last `clear`.
        func documents(of identifier: String) async -> [JSONValue] {
            await running.client.messages(on: topic).compactMap { try? JSONValue(parsing: $0.payload) }
                .filter { $0["identifier"]?.stringValue == identifier }
        }
        func play(_ identifier: String, _ what: String) async throws -> JSONValue {
            await running.client.clear()
            #expect(try await running.send("playItem", #""identifier":"\#(identifier)""#)["status"] == "success")
            let shown = try await running.waitUntil(topic, what) {
                $0["identifier"]?.stringValue == identifier && $0["state"] == "playing" && $0["artwork"] != nil
            }
            // Past the item's own messages (its duration and tags arrive in its first moments).
            try await Task.sleep(for: .seconds(1))
            return shown
        }

        // The first album's first track is loaded at start, its cover scaled then.
        let firstCover = try #require(try await running.waitUntil(topic, "the first track's cover") {
            $0["identifier"]?.stringValue == identifiers[0] && $0["artwork"] != nil
        }["artwork"])
        // The album's other track, never played: the cover is scaled already, so its first message carries it.
        _ = try await play(identifiers[1], "the first album's second track")
        let sameAlbum = await documents(of: identifiers[1])
        #expect(sameAlbum.first?["artwork"] == firstCover, "\(sameAlbum.map(\.jsonString))")
        #expect(sameAlbum.allSatisfy { $0["artwork"] == firstCover }, "\(sameAlbum.map(\.jsonString))")

        // Another album, never played: its cover too is in its first message (the scan scaled it), on the
        // topic the content tree names for it.
        let secondCover = try #require(try await play(identifiers[2], "the second album")["artwork"])
        #expect(secondCover["topic"] != firstCover["topic"], "the first album's cover is shown for the second")
        let otherAlbum = await documents(of: identifiers[2])
        #expect(otherAlbum.first?["artwork"] == secondCover, "\(otherAlbum.map(\.jsonString))")
        #expect(otherAlbum.allSatisfy { $0["artwork"] == secondCover }, "\(otherAlbum.map(\.jsonString))")
        let item = try await running.send("contentItem", #""identifier":"\#(identifiers[2])""#)
        #expect(item["data"]?["artwork"] == secondCover, "\(item.jsonString)")
        // The picture is on its topic for a dashboard that follows the message.
        let pictureTopic = try #require(secondCover["topic"]?.stringValue)
        let late = try TestMQTTClient(brokerURL: running.broker.url)
        try await late.connect()
        try await late.subscribe(pictureTopic)
        let picture = try await late.first { $0.topic == pictureTopic }
        await late.disconnect()
        #expect(picture.payload.count > 0)
        await running.stop()
    }

    @Test("a cover file that is not a picture leaves now playing without artwork and does not break it")
    func garbageCover() async throws {
        let running = try await PlayingNode.start(
            tracks: [ToneTrack(fileName: "a.ogg", frequency: 440, seconds: 6, title: "Garbage")],
            coverBytes: Array("this is not a JPEG".utf8) + (0..<2000).map { UInt8($0 % 251) })
        #expect(try await running.command("play")["status"] == "success")
        let playing = try await running.nowPlaying { $0["state"] == "playing" && $0["title"] == "Garbage" }
        #expect(playing["artwork"] == nil)
        try await Task.sleep(for: .seconds(1))
        #expect(await running.nowPlayingDocuments().allSatisfy { $0["artwork"] == nil })
        #expect(await running.client.received.allSatisfy { !$0.topic.contains("/artwork/") })
        await running.stop()
    }

    @Test("pause shows playbackRate 0 with the elapsed time frozen; play resumes from there")
    func pauseFreezesElapsed() async throws {
        let running = try await PlayingNode.start(tracks: [ToneTrack(fileName: "a.ogg", frequency: 440, seconds: 10, title: "Pause")])
        #expect(try await running.command("play")["status"] == "success")
        try await Task.sleep(for: .seconds(1.5))
        #expect(try await running.command("pause")["status"] == "success")
        let paused = try await running.nowPlaying { $0["state"] == "paused" && ($0["elapsedPlaybackTime"]?.numberValue ?? 0) > 1 }
        #expect(paused["playbackRate"] == 0)
        let elapsed = try #require(paused["elapsedPlaybackTime"]?.numberValue)
        #expect(abs(elapsed - 1.5) < 0.4, "paused at \(elapsed) s")
        #expect(try await running.command("play")["status"] == "success")
        let resumed = try await running.nowPlaying { $0["state"] == "playing" && ($0["elapsedPlaybackTime"]?.numberValue ?? 0) > 1 }
        #expect(abs((resumed["elapsedPlaybackTime"]?.numberValue ?? 0) - elapsed) < 0.3)
        #expect(resumed["playbackRate"] == 1)
        await running.stop()
    }

    @Test("an interruption pauses and shows 'interrupted'; its end resumes only when asked to")
    func interruption() async throws {
        let running = try await PlayingNode.start(tracks: [ToneTrack(fileName: "a.ogg", frequency: 440, seconds: 12, title: "Call")])
        #expect(try await running.command("play")["status"] == "success")
        _ = try await running.nowPlaying { $0["state"] == "playing" }
        #expect(try await running.command("interrupt", #"{"type":"begin"}"#)["status"] == "success")
        let interrupted = try await running.nowPlaying { $0["state"] == "interrupted" }
        #expect(interrupted["playbackRate"] == 0)
        let size = try WAVFile(contentsOf: running.wav).duration
        try await Task.sleep(for: .seconds(1))
        let grown = try WAVFile(contentsOf: running.wav).duration - size
        #expect(grown < 0.2, "audio kept coming during the interruption: \(grown) s in 1 s")
        #expect(try await running.command("interrupt", #"{"type":"end","shouldResume":true}"#)["status"] == "success")
        _ = try await running.nowPlaying { $0["state"] == "playing" }
        // Without shouldResume the end leaves playback paused.
        #expect(try await running.command("interrupt", #"{"type":"begin"}"#)["status"] == "success")
        #expect(try await running.command("interrupt", #"{"type":"end","shouldResume":false}"#)["status"] == "success")
        let after = try await running.nowPlaying { $0["state"] == "paused" }
        #expect(after["playbackRate"] == 0)
        await running.stop()
    }

    @Test("a ducking interruption is heard quieter within 0.3 s of its reply, keeps playing, and its end restores the level as fast")
    func duckingInterruption() async throws {
        let running = try await PlayingNode.start(tracks: [ToneTrack(fileName: "a.ogg", frequency: 440, seconds: 12, title: "Duck")])
        #expect(try await running.command("play")["status"] == "success")
        try await Task.sleep(for: .seconds(1.5))
        let loud = try WAVFile(contentsOf: running.wav)
        let loudLevel = loud.rms(from: max(0, loud.duration - 0.5), length: 0.4)
        // What had been rendered when the request went out: audio after it is what a listener hears next.
        let sentAt = running.renderedSecondsBySize()
        #expect(try await running.command("interrupt", #"{"type":"begin","duck":true}"#)["status"] == "success")
        let repliedAt = running.renderedSecondsBySize()
        try await Task.sleep(for: .seconds(1.5))
        let endSentAt = running.renderedSecondsBySize()
        #expect(try await running.command("interrupt", #"{"type":"end"}"#)["status"] == "success")
        let endRepliedAt = running.renderedSecondsBySize()
        try await Task.sleep(for: .seconds(1.5))
        let wav = try WAVFile(contentsOf: running.wav)
        #expect(wav.duration > endSentAt + 1, "playback did not continue")
        let ducked = try #require(wav.firstWindow(from: sentAt - 0.2) { $0 < loudLevel * 0.5 }, "never quieter")
        let restored = try #require(wav.firstWindow(from: endSentAt - 0.2) { $0 > loudLevel * 0.8 }, "never loud again")
        let duckedLevel = wav.rms(from: ducked + 0.1, length: 0.4)
        #expect(duckedLevel < loudLevel * 0.3, "ducked level \(duckedLevel) vs \(loudLevel)")
        // Measured from the reply, so the time the command took to arrive is not counted against the engine.
        print("duck: sent \(sentAt) replied \(repliedAt) quieter at \(ducked); end sent \(endSentAt) replied \(endRepliedAt) loud at \(restored)")
        #expect(ducked - repliedAt < 0.3, "the duck was heard \(ducked - repliedAt) s after the reply")
        #expect(restored - endRepliedAt < 0.3, "the end was heard \(restored - endRepliedAt) s after the reply")
        await running.stop()
    }
}
