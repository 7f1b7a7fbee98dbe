import Foundation
import MediaJSON
import MediaNodeTesting
import Testing

// Nested in the serialized parent of the audio suites: this one restarts nodes and imports catalogs,
// load that would otherwise upset their timing checks, and theirs this one's.
extension RealEngineCommandTests {
    /// A catalog server is outside the vehicle's control: broken, or hostile. Whatever it sends, the node
    /// must stay small and quick, say what it refused, and keep every other source.
    @Suite("Hostile catalog servers, in the real daemon", .serialized)
    struct HostileCatalogTests {
        /// What the node may grow to while it refuses them all (its own start is about 60 MiB in a debug build).
        static let peakLimitKiB = 300 * 1024

        static func feed(title: String, episodes: Int, image: String? = nil) -> String {
            let items = (1...episodes).map { n in
                #"<item><guid>\#(title)-\#(n)</guid><title>\#(title) \#(n)</title><enclosure url="https://cdn.example.net/\#(n).mp3" type="audio/mpeg"/></item>"#
            }.joined()
            let picture = image.map { #"<itunes:image href="\#($0)"/>"# } ?? ""
            return #"<?xml version="1.0"?><rss version="2.0" xmlns:itunes="http://www.itunes.com/dtds/podcast-1.0.dtd"><channel><title>\#(title)</title>\#(picture)\#(items)</channel></rss>"#
        }

        /// Ten levels of ten: a billion "lol"s, 3 GB, from a file of about a kilobyte.
        static var billionLaughs: String {
            var entities = #"<!ENTITY lol0 "lol">"#
            for level in 1...9 {
                entities += "<!ENTITY lol\(level) \"" + String(repeating: "&lol\(level - 1);", count: 10) + "\">"
            }
            return #"<?xml version="1.0"?><!DOCTYPE rss [\#(entities)]><rss version="2.0"><channel><title>&lol9;</title><item><guid>a</guid><title>&lol9;</title><enclosure url="https://cdn.example.net/a.mp3"/></item></channel></rss>"#
        }

        /// A PNG of 30,000 x 30,000 one-bit pixels: about 110 KB on the wire, 2.7 GB once decoded to RGB.
        static func pictureBomb(in directory: URL) throws -> Data {
            let path = directory.appendingPathComponent("bomb.png").path
            let script = """
                import struct, sys, zlib
                w = h = 30000
                row = b"\\x00" + b"\\x00" * (w // 8)
                def chunk(kind, data):
                    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
                png = b"\\x89PNG\\r\\n\\x1a\\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 1, 0, 0, 0, 0))
                png += chunk(b"IDAT", zlib.compress(row * h, 9)) + chunk(b"IEND", b"")
                open(sys.argv[1], "wb").write(png)
                """
            let (status, output) = try ToolRun.capture("python3", ["-c", script, path])
            guard status == 0 else { throw WaitTimeout("python3 could not write the PNG: \(output)") }
            return try Data(contentsOf: URL(fileURLWithPath: path))
        }

        @Test("a feed of 10^6 items, billion laughs and a 30,000 x 30,000 picture: bounded, refused in the log, the good feed intact")
        func hostileServersAreRefused() async throws {
            let directory = try AudioFixtures.makeTemporaryDirectory("hostile")
            defer { try? FileManager.default.removeItem(at: directory) }
            let server = try FaultHTTPServer()
            defer { server.stop() }
            server.putGenerated(
                "/million.xml", head: #"<?xml version="1.0"?><rss version="2.0"><channel><title>Million</title>"#,
                item: "<item><guid>{n}</guid><enclosure url=\"/{n}\"/></item>\n", count: 1_000_000, tail: "</channel></rss>",
                contentType: "application/rss+xml")
            server.put("/laughs.xml", body: Self.billionLaughs, contentType: "application/rss+xml")
            server.put("/bomb.png", data: try Self.pictureBomb(in: directory), contentType: "image/png")
            server.put("/good.xml", body: Self.feed(title: "Good Show", episodes: 3, image: server.url("/bomb.png").absoluteString),
                       contentType: "application/rss+xml")
            let hostile = ["/million.xml", "/laughs.xml"]

            let broker = try MosquittoBroker()
            defer { broker.stop() }
            let watcher = try await ConnectedClient(broker: broker, subscribing: "medianode/hostile/#")
            let started = ContinuousClock.now
            let node = try NodeProcess(arguments: [
                "--broker", broker.url, "--node-id", "hostile", "--audio-sink", "fake",
                "--database", directory.appendingPathComponent("catalog.sqlite").path]
                + (hostile + ["/good.xml"]).flatMap { ["--catalog", server.url($0).absoluteString] })
            defer { node.signal(SIGKILL) }

            var peak = 0
            // Sampled while the node works, so a brief excursion is seen even if the kernel's peak is reset.
            let deadline = ContinuousClock.now + .seconds(120)
            var refused: Set<String> = []
            while ContinuousClock.now < deadline {
                peak = max(peak, node.memory?.peakKiB ?? 0)
                let log = node.log
                refused = Set(hostile.filter { path in
                    log.split(separator: "\n").contains { $0.contains("refresh failed") && $0.contains(server.url(path).absoluteString) }
                })
                if refused.count == hostile.count && log.contains("unusable") { break }
                if !node.process.isRunning { break }
                try await Task.sleep(for: .milliseconds(100))
            }
            let elapsed = ContinuousClock.now - started
            #expect(node.process.isRunning, "log: \(node.log.suffix(3000))")
            #expect(refused.count == hostile.count, "refused only \(refused.sorted()); log: \(node.log.suffix(3000))")
            #expect(node.log.contains("unusable"), "the picture was not refused; log: \(node.log.suffix(3000))")
            #expect(peak < Self.peakLimitKiB, "peak resident memory \(peak / 1024) MiB")

            // The good feed is all there in the published tree: the show, and its three episodes.
            let prefix = "medianode/hostile/content/tree"
            let root = try await watcher.client.first(timeout: .seconds(30)) {
                $0.topic == prefix && String(decoding: $0.payload, as: UTF8.self).contains("section:podcasts")
            }
            let sections = try JSONValue(parsing: root.payload)["children"]?.arrayValue ?? []
            let podcasts = try #require(sections.firstIndex { $0["identifier"] == "section:podcasts" }, "\(sections)")
            let shows = try await watcher.client.first(timeout: .seconds(30)) { message in
                message.topic == "\(prefix)/\(podcasts)"
                    && ((try? JSONValue(parsing: message.payload))?["children"]?.arrayValue ?? []).contains { $0["title"] == "Good Show" }
            }
            let show = try #require((try JSONValue(parsing: shows.payload)["children"]?.arrayValue ?? []).firstIndex { $0["title"] == "Good Show" })
            let episodes = try await watcher.client.first(timeout: .seconds(30)) { $0.topic == "\(prefix)/\(podcasts)/\(show)" }
            #expect(try JSONValue(parsing: episodes.payload)["childCount"] == 3)
            print("hostile catalog servers refused in \(elapsed); peak resident memory \(peak / 1024) MiB")
            await watcher.client.disconnect()
        }

        /// Off by default, and not yet reliable: swift-corelibs-foundation's URLSession queues every chunk
        /// libcurl reads for the delegate, faster than the delegate runs. Before the fetcher watched the task's
        /// own byte count, an endless body on loopback drove the node to 1.1-7.3 GB (once not refused within
        /// 60 s) and a 2 GB Content-Length to 0.3-1.4 GB. With it, runs peak at 130-410 MiB and 60-240 MiB, but
        /// one run in five on a loaded machine still reached 2.3 GB: there is no back-pressure to apply.
        @Test("an endless body and a 2 GB Content-Length are refused with bounded memory (MEDIANODE_HTTP_FLOOD_TEST=1)",
              .enabled(if: ProcessInfo.processInfo.environment["MEDIANODE_HTTP_FLOOD_TEST"] == "1",
                       "off by default: on a loaded machine it can still drive the node past 1 GB, too much for shared CI"))
        func floodsAreRefusedWithBoundedMemory() async throws {
            let directory = try AudioFixtures.makeTemporaryDirectory("flood")
            defer { try? FileManager.default.removeItem(at: directory) }
            let server = try FaultHTTPServer()
            defer { server.stop() }
            server.inject(Array(repeating: .endless(chunk: nil), count: 20), at: "/endless.xml")
            server.inject(Array(repeating: .contentLength(2_000_000_000), count: 20), at: "/huge-length.xml")
            server.put("/good.xml", body: Self.feed(title: "Good Show", episodes: 3), contentType: "application/rss+xml")
            let broker = try MosquittoBroker()
            defer { broker.stop() }
            for path in ["/endless.xml", "/huge-length.xml"] {
                let node = try NodeProcess(arguments: [
                    "--broker", broker.url, "--node-id", "flood", "--audio-sink", "fake",
                    "--database", directory.appendingPathComponent("catalog.sqlite").path,
                    "--catalog", server.url(path).absoluteString, "--catalog", server.url("/good.xml").absoluteString])
                defer { node.signal(SIGKILL) }
                var peak = 0
                let deadline = ContinuousClock.now + .seconds(60)
                while ContinuousClock.now < deadline, !node.log.contains("refresh failed") {
                    peak = max(peak, node.memory?.peakKiB ?? 0)
                    try await Task.sleep(for: .milliseconds(50))
                }
                try await Task.sleep(for: .seconds(1))
                peak = max(peak, node.memory?.peakKiB ?? 0)
                #expect(node.log.contains("refresh failed") && node.log.contains(server.url(path).absoluteString))
                #expect(peak < Self.peakLimitKiB, "\(path): peak resident memory \(peak / 1024) MiB")
                print("\(path): refused; peak resident memory \(peak / 1024) MiB")
                node.signal(SIGKILL)
                _ = await node.waitForExit()
            }
        }
    }
}
