import ArgumentParser
import CatalogStore
import Foundation
import GStreamerAudio
import Logging
import MQTTTransport
import MediaNode
import MediaNodeFixtures

/// What a dashboard subscribed to the whole content tree receives while one item plays steadily: an album
/// track (its lists do not display progress) and a podcast episode (its feed does), each counted over the
/// same window, with the position saved at the node's interval. The window opens past the 5 s mark at
/// which Recently Played lists the item: that one update is the start, not steady playback.
///
/// The node runs in this process with its real transport, catalog file and GStreamer engine rendering into
/// a `wav:` sink, over a generated album and a podcast feed read from a file.
struct TreeTrafficBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tree-traffic",
        abstract: "Steady playback of music and of a podcast: messages and bytes per minute on the content tree.")

    @Option(help: "Seconds of steady playback counted for each of music and podcast.") var seconds = 60.0
    @Option(help: "Seconds between saves of the playing item's position (the node's --progress-interval).")
    var progressInterval = 10.0
    @Option(help: "Tracks on the album (the size of the lists that show the track).") var tracks = 12
    @Option(help: "Episodes in the feed (the size of the feed's node).") var episodes = 50

    func run() async throws {
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = .warning
            return handler
        }
        let directory = try AudioFixtures.makeTemporaryDirectory("bench-tree-traffic")
        defer { try? FileManager.default.removeItem(at: directory) }
        let music = directory.appendingPathComponent("music")
        // The first track is played; the others only fill the lists.
        for (index, track) in AudioFixtures.album(count: tracks, seconds: 1, album: "Steady Album").enumerated() {
            var track = track
            if index == 0 { track.seconds = seconds + 15 }
            try await AudioFixtures.writeTone(track, in: music)
        }
        let feed = try await Self.writeFeed(in: directory, episodes: episodes, seconds: seconds + 15)

        let broker = try await MosquittoBroker()
        defer { broker.stop() }
        let url = try BrokerURL(parsing: broker.url)
        let databasePath = directory.appendingPathComponent("catalog.sqlite").path
        let database = try CatalogDatabase(path: databasePath)
        _ = await CatalogRefresher(database: database).refresh(LocalFolderProvider(roots: [music]))
        _ = await CatalogRefresher(database: database).refresh(
            try RemoteCatalogProvider(location: feed.path, fetcher: StandardCatalogFetcher()))
        let configuration = NodeConfiguration(
            broker: url, nodeID: "bench-tree", libraries: [music.path], catalogs: [feed.path], databasePath: databasePath,
            audioSink: "wav:" + directory.appendingPathComponent("out.wav").path,
            content: ContentSettings(progressInterval: .milliseconds(Int64(progressInterval * 1000))))
        let engine = try GStreamerEngine(sink: configuration.audioSink)
        let node = Node(configuration: configuration, transport: try MQTTClient(configuration: configuration.mqttConfiguration),
                        engine: engine, catalog: database)
        let nodeTask = Task { await node.run() }
        let listener = try Listener(url: url, topics: configuration.topics)
        let commander = try Commander(url: url, topics: configuration.topics)
        try await Task.sleep(for: .seconds(2))

        let seconds = seconds
        print(String(format: "steady playback, %.0f s counted each, position saved every %.1f s; content tree topics "
                     + "(all topics under the prefix beside them):", seconds, progressInterval))
        // Library > Albums > Steady Album > its first track; Podcasts > the feed > its first episode.
        for (name, path) in [("music (album track)", "[0,1,0,0]"), ("podcast (episode)", "[1,0,0]")] {
            await onDedicatedThread { Self.measure(name, indexPath: path, seconds: seconds, commander, listener) }
        }

        await node.shutdown()
        await nodeTask.value
        await commander.client.shutdown()
        await listener.client.shutdown()
        try? database.close()
    }

    /// Plays the item at `indexPath`, lets its start and its 5 s mark pass, counts `seconds`, then pauses.
    static func measure(_ name: String, indexPath: String, seconds: Double, _ commander: Commander, _ listener: Listener) {
        guard commander.send("playItem", #"{"indexPath":\#(indexPath)}"#), commander.lastStatus?.hasPrefix("success") == true else {
            print("  \(name): playItem \(indexPath) failed: \(commander.lastStatus ?? "no reply")")
            return
        }
        usleep(6_000_000)
        let start = monotonicNanoseconds()
        usleep(useconds_t(seconds * 1e6))
        let end = monotonicNanoseconds()
        _ = commander.send("pause", "{}")
        usleep(500_000)
        let window = listener.all().filter { $0.time > start && $0.time <= end }
        let tree = listener.topics.contentTree
        let onTree = window.filter { $0.topic == tree || $0.topic.hasPrefix(tree + "/") }
        let perMinute = 60 / seconds
        print(String(format: "  %@ %5.1f messages/min, %8.0f bytes/min (all topics: %5.1f messages/min, %8.0f bytes/min)",
                     name.padding(toLength: 20, withPad: " ", startingAt: 0) as NSString, Double(onTree.count) * perMinute, Double(onTree.map(\.bytes).reduce(0, +)) * perMinute,
                     Double(window.count) * perMinute, Double(window.map(\.bytes).reduce(0, +)) * perMinute))
        for (topic, messages) in Dictionary(grouping: onTree, by: \.topic).sorted(by: { $0.key < $1.key }) {
            print("    \(topic): \(messages.count) messages, \(messages.map(\.bytes).reduce(0, +)) bytes")
        }
    }

    /// A feed whose episodes all play the same generated tone, so any of them can be played for long.
    static func writeFeed(in directory: URL, episodes: Int, seconds: Double) async throws -> URL {
        let audio = try await AudioFixtures.writeTone(
            ToneTrack(fileName: "episode.ogg", frequency: 550, seconds: seconds, title: "Episode"), in: directory)
        let items = (1...max(1, episodes)).map { number in
            "<item><guid>ep\(number)</guid><title>Episode \(number)</title><description>Show notes of episode "
                + "\(number).</description><enclosure url=\"\(audio.absoluteString)\" type=\"audio/ogg\"/></item>"
        }
        let feed = directory.appendingPathComponent("feed.xml")
        try "<rss version=\"2.0\"><channel><title>Steady Show</title>\(items.joined())</channel></rss>"
            .write(to: feed, atomically: true, encoding: .utf8)
        return feed
    }
}
