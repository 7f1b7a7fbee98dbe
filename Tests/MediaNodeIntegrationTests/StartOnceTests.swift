import Foundation
import MediaJSON
import MediaNodeTesting
import Testing

/// What a dashboard sees of a daemon's start: each retained topic once, not a copy marked before the
/// connection and another sent with it.
@Suite("The daemon's start publishes each retained topic once")
final class StartOnceTests {
    let scratch: URL

    init() throws {
        scratch = try AudioFixtures.makeTemporaryDirectory("start-once")
    }

    deinit {
        try? FileManager.default.removeItem(at: scratch)
    }

    @Test("one P/metrics comes with online and the next one an interval later; on a fresh catalog with a library each section's node is published once, the library's first")
    func eachTopicOnceAtStart() async throws {
        let library = scratch.appendingPathComponent("music")
        for track in AudioFixtures.album(count: 2, seconds: 0.3, album: "Once", artist: "Start Band") {
            _ = try await AudioFixtures.writeTone(track, in: library)
        }
        let broker = try await MosquittoBroker()
        defer { broker.stop() }
        let client = try TestMQTTClient(brokerURL: broker.url)
        try await client.connect()
        try await client.subscribeAndSettle("medianode/once/#")
        let node = try NodeProcess(arguments: [
            "--broker", broker.url, "--node-id", "once", "--audio-sink", "fake", "--metrics-interval", "2",
            "--library", library.path, "--database", scratch.appendingPathComponent("fresh.sqlite").path,
        ])
        let online = try await client.first(timeout: .seconds(30)) {
            $0.topic == "medianode/once/status" && $0.payload == Array("online".utf8)
        }
        // The library is scanned and shown by then (two short files), and the second P/metrics is due.
        _ = try await client.first(timeout: .seconds(30)) { message in
            message.topic == "medianode/once/content/tree/0/1"
                && (try? JSONValue(parsing: message.payload))?["children"]?[0]?["title"] == "Once"
        }
        // The second P/metrics: an interval after the first, not with it.
        let metrics = "medianode/once/metrics"
        let first = try await client.first(timeout: .seconds(5)) { $0.topic == metrics }
        let second = try await client.first(timeout: .seconds(15)) { $0.topic == metrics && $0.receivedAt > first.receivedAt }
        #expect(first.receivedAt - online.receivedAt < .seconds(1), "\(first.receivedAt - online.receivedAt)")
        #expect(second.receivedAt - first.receivedAt > .milliseconds(1500),
                "two P/metrics \(second.receivedAt - first.receivedAt) apart at the start")
        try await Task.sleep(for: .milliseconds(300))
        let received = await client.received
        // Recently Played and Favorites never move: published once, at the index they keep.
        for (path, title) in [("1", "Recently Played"), ("2", "Favorites")] {
            let copies = received.filter { $0.topic == "medianode/once/content/tree/\(path)" }
            let titles = copies.map { (try? JSONValue(parsing: $0.payload))?["item"]?["title"]?.stringValue ?? "?" }
            #expect(titles == [title], "content/tree/\(path) was published as \(titles)")
        }
        let root = try #require(received.first { $0.topic == "medianode/once/content/tree" })
        let sections = try JSONValue(parsing: root.payload)["children"]?.arrayValue?.compactMap { $0["title"]?.stringValue }
        #expect(sections?.first == "Library", "the first root listed \(sections ?? [])")
        node.signal(SIGTERM)
        _ = await node.waitForExit()
        await client.disconnect()
    }
}
