import Foundation
import MediaJSON
import MediaNodeTesting
import Testing

extension RealEngineCommandTests.AnnouncementTests {
    /// The clips `node` downloaded and still holds.
    static func downloadsLeft(_ node: RunningNode) -> [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: node.node.announcementDownloads.path)) ?? []
    }

    @Test("bad requests are refused at once, each with a status and a message, and the music is untouched")
    func refusals() async throws {
        let (library, clips) = try await Self.setUp("announce-refusals")
        defer { library.remove() }
        let (node, before) = try await Self.playing(library)
        defer { Task { await node.stop() } }
        let from = node.renderedSeconds()
        let clip = clips[0].absoluteString
        let long = String(repeating: "Next stop, Main Street. ", count: 417).prefix(10_000)
        let refused: [(fields: String, statuses: Set<String>)] = [
            (#""url":"file:///nonexistent/clip.ogg""#, ["noSuchContent", "commandFailed"]),
            (#""url":"\#(library.directory.path)""#, ["commandFailed"]),
            (#""url":"\#(library.directory.absoluteString)""#, ["noSuchContent", "commandFailed"]),
            (#""url":"ftp://example.net/clip.ogg""#, ["commandFailed"]),
            (#""identifier":"track:nosuchtrack""#, ["noSuchContent"]),
            (#""identifier":"section:library""#, ["noSuchContent"]),
            (#""url":"\#(clip)","text":"hello""#, ["commandFailed"]),
            (#""url":"\#(clip)","identifier":"\#(library.identifier(0))""#, ["commandFailed"]),
            (#""mode":"duck""#, ["commandFailed"]),
            (#""text":"""#, ["commandFailed"]),
            (#""text":"   ""#, ["commandFailed"]),
            (#""text":"\#(long)""#, ["commandFailed"]),
            (#""text":"hello","lang":"en_US;rm""#, ["commandFailed"]),
            (#""url":"\#(clip)","lang":"en""#, ["commandFailed"]),
            (#""url":"\#(clip)","volume":"loud""#, ["commandFailed"]),
            (#""url":"\#(clip)","volume":2"#, ["commandFailed"]),
            (#""url":"\#(clip)","volume":-0.1"#, ["commandFailed"]),
            (#""url":"\#(clip)","mode":"shout""#, ["commandFailed"]),
            (#""url":"\#(clip)","mode":1"#, ["commandFailed"]),
            (#""url":1"#, ["commandFailed"]),
            (#""identifier":true"#, ["commandFailed"]),
            (#""text":["hello"]"#, ["commandFailed"]),
            (#""text":"hello","lang":5"#, ["commandFailed"]),
            (#""cancel":"yes""#, ["commandFailed"]),
            (#""url":null"#, ["commandFailed"]),
        ]
        var shown: [String] = []
        for (fields, statuses) in refused {
            let reply = try await node.send("announce", fields)
            let status = reply["status"]?.stringValue ?? "none"
            let message = reply["message"]?.stringValue ?? ""
            #expect(statuses.contains(status) && !message.isEmpty, "\(fields.prefix(120)): \(reply.jsonString.prefix(300))")
            shown.append("\(status): \(message.prefix(90))")
        }
        try await node.waitForAudio(atLeast: node.renderedSeconds() + 0.5)
        let wav = try node.wav()
        let levels = wav.musicLevels(from: from, to: wav.duration - 0.05)
        let (quietest, loudest) = (levels.min() ?? 0, levels.max() ?? 0)
        print("announce refusals:\n  " + shown.joined(separator: "\n  "))
        print(String(format: "announce refusals: %d refused over %.2f s of music, its level %.4f to %.4f against %.4f",
                     refused.count, Double(levels.count) * 0.05, quietest, loudest, before))
        #expect(abs(ratioInDecibels(quietest / before)) < 1 && abs(ratioInDecibels(loudest / before)) < 1, "the music was never lowered")
        #expect(await node.events().allSatisfy { $0["type"]?.stringValue?.hasPrefix("announcement") != true }, "nothing played")
        #expect(await node.nowPlaying?["state"] == "playing")
    }

    @Test("at most 10 wait besides the one playing: the 11th waiting is refused; a cancel ends all 11")
    func elevenWaiting() async throws {
        let (library, clips) = try await Self.setUp("announce-eleven", clipSeconds: 3)
        defer { library.remove() }
        let (node, before) = try await Self.playing(library)
        defer { Task { await node.stop() } }
        let announcedAt = node.renderedSeconds()
        let first = try await node.announce(#""url":"\#(clips[0].absoluteString)""#)
        try await node.waitForEvent("started") { $0.isAnnouncement("announcementStarted", first) }
        var ids = [first]
        for _ in 0..<10 { ids.append(try await node.announce(#""url":"\#(clips[1].absoluteString)""#)) }
        let eleventh = try await node.send("announce", #""url":"\#(clips[2].absoluteString)""#)
        #expect(eleventh["status"] == "commandFailed" && eleventh["message"]?.stringValue?.isEmpty == false,
                "\(eleventh.jsonString)")
        let cancelled = try await node.send("announce", #""cancel":true"#)
        #expect(cancelled["data"]?["cancelled"] == 11, "\(cancelled.jsonString)")
        let last = ids[10]
        try await node.waitForEvent("the last ended") { $0.isAnnouncement("announcementFinished", last) }
        try await node.waitForAudio(atLeast: node.renderedSeconds() + 1.5)
        let seen = await node.announcementTimeline().filter { $0.hasPrefix("announcement") }
        #expect(seen == ["announcementStarted \(first)"] + ids.map { "announcementFinished \($0) cancelled" }, "\(seen)")
        let wav = try node.wav()
        let after = wav.toneLevel(440, from: wav.duration - 1.0, length: 0.5)
        print(String(format: "announce 11 waiting: refused with \"%@\"; after the cancel the music %.4f against %.4f",
                     eleventh["message"]?.stringValue ?? "", after, before))
        #expect(wav.toneSpan(2500, from: announcedAt) == nil, "the refused clip never played")
        #expect(abs(ratioInDecibels(after / before)) < 1, "the music is back at its level")
    }

    @Test("a catalog identifier of a playable item is accepted and heard")
    func catalogItemIsHeard() async throws {
        let (library, _) = try await Self.setUp("announce-identifier", more: [(3000, 1.5)])
        defer { library.remove() }
        let (node, before) = try await Self.playing(library)
        defer { Task { await node.stop() } }
        let announcedAt = node.renderedSeconds()
        let id = try await node.announce(#""identifier":"\#(library.identifier(1))""#)
        let finished = try await node.waitForEvent("finished") { $0.isAnnouncement("announcementFinished", id) }
        try await node.waitForAudio(atLeast: node.renderedSeconds() + 1.5)
        let wav = try node.wav()
        let clip = try #require(wav.toneSpan(3000, from: announcedAt), "the item is heard")
        let level = wav.toneLevel(3000, from: clip.start + 0.1, length: 1)
        let after = wav.toneLevel(440, from: clip.end + 0.5, length: 0.5)
        print(String(format: "announce identifier: heard %.2f s at %.4f; the music after %.4f against %.4f",
                     clip.end - clip.start, level, after, before))
        #expect(finished["reason"] == "finished", "\(finished.jsonString)")
        #expect(level > 0.2 && clip.end - clip.start > 1.3, "the whole item is heard")
        #expect(abs(ratioInDecibels(after / before)) < 1, "the music is back at its level")
        #expect(await node.nowPlaying?["title"] == "Tone 440", "the queue is not changed")
    }

    @Test("HTTP clips: a good one is heard; a 2 GB body, an endless one, HTML and a dead port fail untouching the music")
    func httpClips() async throws {
        let (library, clips) = try await Self.setUp("announce-http")
        defer { library.remove() }
        let server = try await FaultHTTPServer()
        defer { server.stop() }
        await server.put("/clip.ogg", data: try Data(contentsOf: clips[0]), contentType: "audio/ogg")
        await server.put("/page.html", body: "<!doctype html><html><body><h1>Next stop</h1></body></html>\n", contentType: "text/html")
        await server.put("/garbage.ogg", body: String(repeating: "not an Ogg stream at all\n", count: 400), contentType: "audio/ogg")
        await server.inject([.contentLength(2_147_483_648)], at: "/huge.ogg")
        await server.inject([.endless(chunk: nil)], at: "/endless.ogg")
        let (node, before) = try await Self.playing(library)
        defer { Task { await node.stop() } }

        // A good one first, so the failures below are the URLs' and not the path's.
        var announcedAt = node.renderedSeconds()
        let good = try await node.announce(#""url":"\#(server.url("/clip.ogg").absoluteString)""#)
        let goodEnd = try await node.waitForEvent("finished") { $0.isAnnouncement("announcementFinished", good) }
        #expect(goodEnd["reason"] == "finished", "\(goodEnd.jsonString)")
        try await node.waitForAudio(atLeast: node.renderedSeconds() + 1)
        #expect(try node.wav().toneSpan(1500, from: announcedAt) != nil, "the downloaded clip is heard")
        #expect(Self.downloadsLeft(node).isEmpty, "the downloaded copy is removed: \(Self.downloadsLeft(node))")

        // Failures before a sample is played: the music is never touched.
        announcedAt = node.renderedSeconds()
        let dead = "http://127.0.0.1:\(try MosquittoBroker.freePort())/clip.ogg"
        var lines: [String] = []
        let urls = ["/huge.ogg", "/endless.ogg", "/page.html"].map { server.url($0).absoluteString } + [dead]
        for url in urls {
            let sent = Date()
            let id = try await node.announce(#""url":"\#(url)""#)
            let end = try await node.waitForEvent("\(url) ended", timeout: 40) { $0.isAnnouncement("announcementFinished", id) }
            let seconds = Date().timeIntervalSince(sent)
            let message = end["message"]?.stringValue ?? ""
            lines.append(String(format: "%@: %@ after %.2f s: %@", url, end["reason"]?.stringValue ?? "-", seconds, message))
            #expect(end["reason"] == "failed" && !message.isEmpty, "\(url): \(end.jsonString)")
            #expect(seconds < 30, "\(url) failed within the 30 s cap: \(seconds) s")
            #expect(Self.downloadsLeft(node).isEmpty, "\(url) left \(Self.downloadsLeft(node))")
            #expect(await !node.events().contains { $0.isAnnouncement("announcementStarted", id) }, "\(url) never started")
        }
        try await node.waitForAudio(atLeast: node.renderedSeconds() + 0.2)
        let failedWAV = try node.wav()
        let untouched = failedWAV.musicLevels(from: announcedAt, to: failedWAV.duration - 0.05)
        let quietest = untouched.min() ?? 0

        let page = await node.events().first { $0["message"]?.stringValue?.contains("page.html") == true }
        #expect(page?["message"]?.stringValue?.hasSuffix("sent text/html, not audio") == true, "\(page?.jsonString ?? "no event")")

        // Said to be audio but not: it fails when it plays, and the music comes back all the same.
        let sent = Date()
        let garbage = try await node.announce(#""url":"\#(server.url("/garbage.ogg").absoluteString)""#)
        let garbageEnd = try await node.waitForEvent("the garbage ended") { $0.isAnnouncement("announcementFinished", garbage) }
        lines.append(String(format: "/garbage.ogg: %@ after %.2f s: %@", garbageEnd["reason"]?.stringValue ?? "-",
                            Date().timeIntervalSince(sent), garbageEnd["message"]?.stringValue ?? ""))
        #expect(garbageEnd["reason"] == "failed" && garbageEnd["message"]?.stringValue?.isEmpty == false,
                "\(garbageEnd.jsonString)")
        try await sleep(0.6)
        let afterAt = node.renderedSeconds()
        try await node.waitForAudio(atLeast: afterAt + 0.6)
        let after = try node.wav().toneLevel(440, from: afterAt, length: 0.5)
        print("announce http:\n  " + lines.joined(separator: "\n  "))
        print(String(format: "announce http: music %.4f; quietest 50 ms while the downloads failed %.4f (%+.2f dB); "
                + "after the garbage %.4f (%+.2f dB)", before, quietest, ratioInDecibels(quietest / before), after,
                     ratioInDecibels(after / before)))
        #expect(abs(ratioInDecibels(quietest / before)) < 1, "the music is untouched by failed downloads")
        #expect(abs(ratioInDecibels(after / before)) < 1, "the music is back after the garbage failed")
        #expect(Self.downloadsLeft(node).isEmpty, "nothing left: \(Self.downloadsLeft(node))")
        #expect(await node.nowPlaying?["state"] == "playing")
    }
}

extension RealEngineCommandTests.AnnouncementTests {
    @Test("a cancel while a clip is still downloading ends it at once as cancelled, leaving no file")
    func cancelDuringDownload() async throws {
        let (library, _) = try await Self.setUp("announce-cancel-download")
        defer { library.remove() }
        let server = try await FaultHTTPServer()
        defer { server.stop() }
        await server.inject([.stall(seconds: 20)], at: "/slow.ogg")
        let (node, before) = try await Self.playing(library)
        defer { Task { await node.stop() } }
        let announcedAt = node.renderedSeconds()
        let id = try await node.announce(#""url":"\#(server.url("/slow.ogg").absoluteString)""#)
        try await sleep(0.5)
        let asked = Date()
        #expect(try await node.status("announce", #""cancel":true"#) == "success")
        let ended = try await node.waitForEvent("ended") { $0.isAnnouncement("announcementFinished", id) }
        let seconds = Date().timeIntervalSince(asked)
        try await node.waitForAudio(atLeast: node.renderedSeconds() + 0.3)
        let wav = try node.wav()
        let levels = wav.musicLevels(from: announcedAt, to: wav.duration - 0.05)
        print(String(format: "announce cancel during a download: ended %@ %.0f ms after the cancel; music %.4f to %.4f against %.4f",
                     ended["reason"]?.stringValue ?? "-", seconds * 1000, levels.min() ?? 0, levels.max() ?? 0, before))
        #expect(ended["reason"] == "cancelled" && seconds < 1, "\(ended.jsonString) after \(seconds) s")
        #expect(Self.downloadsLeft(node).isEmpty, "nothing left: \(Self.downloadsLeft(node))")
        #expect(abs(ratioInDecibels((levels.min() ?? 0) / before)) < 1, "the music was never lowered")

        // The folder the download was made in is the node's own: it goes with the node.
        let folder = node.node.announcementDownloads.path
        #expect(FileManager.default.fileExists(atPath: folder), "the download was made in \(folder)")
        await node.node.shutdown()
        await node.task.value
        #expect(!FileManager.default.fileExists(atPath: folder), "\(folder) is left after the node stopped")
    }
}
