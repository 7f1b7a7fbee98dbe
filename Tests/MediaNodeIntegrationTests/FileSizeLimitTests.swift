import Foundation
import MediaJSON
import MediaNodeTesting
import Testing

/// A node started under a file-size limit (`ulimit -f`, RLIMIT_FSIZE) too small for its catalog: the write
/// fails with EFBIG (the node ignores SIGXFSZ), which SQLite calls a disk I/O error.
@Suite("The catalog under a file-size limit")
struct FileSizeLimitTests {
    /// A library of albums whose covers are each `pattern`'s picture (videotestsrc's "snow" is noise, which no
    /// JPEG compresses: a cover of about 256 KiB), each a pixel narrower than the last, so no two are the same.
    static func library(in directory: URL, albums: [(name: String, pattern: String)]) async throws -> URL {
        let music = directory.appendingPathComponent("music")
        for (index, album) in albums.enumerated() {
            let folder = music.appendingPathComponent(album.name)
            for track in AudioFixtures.album(count: 2, seconds: 2, album: album.name, artist: "Limit", baseFrequency: 440 + 220 * index) {
                _ = try await AudioFixtures.writeTone(track, in: folder)
            }
            let (status, output) = try await ToolRun.capture("gst-launch-1.0", [
                "-q", "videotestsrc", "num-buffers=1", "pattern=\(album.pattern)", "!", "video/x-raw,width=\(600 - index),height=600", "!",
                "videoconvert", "!", "jpegenc", "quality=95", "!", "filesink", "location=\(folder.appendingPathComponent("cover.jpg").path)",
            ])
            try #require(status == 0, "gst-launch failed: \(output)")
        }
        return music
    }

    static func start(_ broker: MosquittoBroker, _ directory: URL, library: URL, limit: Int) throws -> NodeProcess {
        try NodeProcess(
            arguments: ["--broker", broker.url, "--node-id", "fsize", "--audio-sink", "fake", "--library", library.path,
                        "--database", directory.appendingPathComponent("catalog.sqlite").path],
            fileSizeLimit: limit)
    }

    /// `wait`'s result; when it throws, the node's log goes with the error.
    static func withLog<T>(of node: NodeProcess, _ wait: () async throws -> T) async throws -> T {
        do {
            return try await wait()
        } catch {
            Issue.record("log: \(node.log)")
            throw error
        }
    }

    @Test("a new catalog under a 400 KB limit still holds a small library, and the node serves it")
    func smallLibraryServed() async throws {
        let directory = try AudioFixtures.makeTemporaryDirectory("fsize-small")
        defer { try? FileManager.default.removeItem(at: directory) }
        let library = try await Self.library(in: directory, albums: [("Small", "smpte")])
        let broker = try await MosquittoBroker()
        let watcher = try TestMQTTClient(brokerURL: broker.url)
        try await watcher.connect()
        try await watcher.subscribeAndSettle("medianode/fsize/#")
        let node = try Self.start(broker, directory, library: library, limit: 409_600)
        defer { node.signal(SIGKILL) }
        // Library > Albums lists the album: the scan was stored.
        let albums = try await Self.withLog(of: node) {
            try await watcher.current(on: "medianode/fsize/content/tree/0/1", timeout: .seconds(30)) { message in
                guard let message, let node = try? JSONValue(parsing: message.payload) else { return false }
                return node["children"]?[0]?["title"] == "Small"
            }
        }
        #expect(albums != nil, "log: \(node.log)")
        node.signal(SIGTERM)
        _ = await node.waitForExit()
        await watcher.disconnect()
        broker.stop()
    }

    @Test("a library that cannot be stored under the limit: the log and P/events say it is the file-size limit, and the node serves on")
    func limitNamed() async throws {
        let directory = try AudioFixtures.makeTemporaryDirectory("fsize-large")
        defer { try? FileManager.default.removeItem(at: directory) }
        let library = try await Self.library(in: directory, albums: [("Noise A", "snow"), ("Noise B", "snow"), ("Noise C", "snow"), ("Noise D", "snow")])
        let broker = try await MosquittoBroker()
        let watcher = try TestMQTTClient(brokerURL: broker.url)
        try await watcher.connect()
        try await watcher.subscribeAndSettle("medianode/fsize/#")
        let node = try Self.start(broker, directory, library: library, limit: 409_600)
        defer { node.signal(SIGKILL) }
        let event = try JSONValue(parsing: try await Self.withLog(of: node) {
            try await watcher.first(timeout: .seconds(30)) { message in
                message.topic == "medianode/fsize/events"
                    && (try? JSONValue(parsing: message.payload))?["type"] == "error"
            }
        }.payload)
        let message = event["message"]?.stringValue ?? ""
        #expect(message.contains("at most 409600 bytes (ulimit -f)"), "\(event.jsonString)")
        #expect(await node.waitForLog("(ulimit -f)"), "log: \(node.log)")
        // It still answers and serves its tree.
        try await watcher.publish("medianode/fsize/cmd/browse", #"{"id":"b","indexPath":[]}"#)
        let reply = try JSONValue(parsing: try await watcher.first(timeout: .seconds(20)) {
            $0.topic == "medianode/fsize/result" && (try? JSONValue(parsing: $0.payload))?["id"] == "b"
        }.payload)
        #expect(reply["status"] == "success", "\(reply.jsonString)")
        node.signal(SIGTERM)
        #expect(await node.waitForExit() == 0, "log: \(node.log)")
        await watcher.disconnect()
        broker.stop()
    }
}
