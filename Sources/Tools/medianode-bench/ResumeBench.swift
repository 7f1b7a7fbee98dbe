import ArgumentParser
import CatalogStore
import Foundation
import GRDB
import MediaJSON
import MediaNode
import MediaNodeFixtures

/// What resuming costs a start: the daemon started on a catalog whose saved play state holds a long queue,
/// beside the same start with nothing saved, in alternating runs; and the saved state read by hand.
struct ResumeBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "resume", abstract: "Start with a restored queue beside a start with none; the play state read by hand.")

    @Option(help: "Entries in the saved queue (and playable items in the catalog).") var entries = 10_000
    @Option(help: "Starts measured of each kind.") var starts = 7

    func run() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("mn-bench-\(UUID().uuidString.prefix(8))")
        let music = directory.appendingPathComponent("music")
        try FileManager.default.createDirectory(at: music, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("catalog.sqlite").path
        let source = CatalogSource(kind: .local, location: "/bench/music")
        let snapshot = SyntheticCatalog.snapshot(source: source, items: entries)
        let saved: SavedPlayState
        do {
            let database = try CatalogDatabase(path: path)
            try await database.register(source)
            try await database.replaceContent(of: source.identifier, with: snapshot)
            // Real files behind the items: a restore leaves out entries whose local file is gone.
            let identifiers = try await database.pool.write { db -> [String] in
                try db.execute(sql: "UPDATE item SET uri = replace(uri, 'file:///music/', ?) WHERE isPlayable",
                               arguments: [music.absoluteString.hasSuffix("/") ? music.absoluteString : music.absoluteString + "/"])
                return try String.fetchAll(db, sql: "SELECT identifier FROM item WHERE isPlayable ORDER BY rowid")
            }
            for index in 0..<identifiers.count {
                FileManager.default.createFile(atPath: music.appendingPathComponent("\(index).ogg").path, contents: nil)
            }
            saved = SavedPlayState(
                entries: identifiers.enumerated().map { .init(identifier: $1, originalIndex: $0, container: nil) },
                currentIndex: identifiers.count / 2, elapsed: 61.5, repeatMode: "all", shuffleMode: "off", rate: 1,
                state: "paused", context: [], savedAt: Date().timeIntervalSince1970)
            try database.close()
        }
        print("catalog: \(entries) playables in \(path); saved queue: \(saved.entries.count) entries")

        let broker = try await MosquittoBroker()
        defer { broker.stop() }
        let binary = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
            .appendingPathComponent("medianode").path
        var online = (restored: LatencySamples(), none: LatencySamples())
        var nowPlaying = (restored: LatencySamples(), none: LatencySamples())
        var byHand = LatencySamples()
        // Run 0 warms the caches up for both kinds and is not counted.
        for run in 0...starts {
            for restoring in [true, false] {
                let database = try CatalogDatabase(path: path)
                if restoring {
                    try await database.savePlayState(saved, queueChanged: true)
                    let clock = ContinuousClock()
                    let start = clock.now
                    let read = try await database.savedPlayState()
                    if run > 0 { byHand.append(clock.now - start) }
                    guard read?.entries.count == saved.entries.count else { throw ValidationError("the saved state did not read back") }
                } else {
                    try await database.pool.write { db in try db.execute(sql: "DELETE FROM play_state; DELETE FROM play_queue") }
                }
                try database.close()
                let (toOnline, toNowPlaying, shown) = try await timeStart(
                    broker: broker, binary: binary, nodeID: "resume\(run)\(restoring ? "r" : "n")", database: path)
                if restoring, shown["state"] != "paused" || shown["playbackQueueCount"]?.numberValue != Double(saved.entries.count) {
                    throw ValidationError("the restored start showed \(shown.jsonString)")
                }
                guard run > 0 else { continue }
                if restoring {
                    online.restored.append(toOnline)
                    nowPlaying.restored.append(toNowPlaying)
                } else {
                    online.none.append(toOnline)
                    nowPlaying.none.append(toNowPlaying)
                }
            }
        }
        report("Process start to `online` (\(starts) starts each, alternating):",
               subject: ("\(entries)-entry queue restored", online.restored), floor: ("nothing saved", online.none))
        report("Process start to the first P/nowplaying:",
               subject: ("\(entries)-entry queue restored (paused)", nowPlaying.restored),
               floor: ("nothing saved (stopped)", nowPlaying.none))
        report("The saved play state read:",
               subject: ("by hand, CatalogDatabase.savedPlayState", byHand), floor: ("(none)", LatencySamples()))
    }

    /// Starts the daemon and returns the times from its start to `online` and to its first now playing,
    /// and that now playing; then stops it with SIGTERM.
    func timeStart(broker: MosquittoBroker, binary: String, nodeID: String, database: String) async throws
        -> (Duration, Duration, JSONValue) {
        let prefix = "medianode/\(nodeID)"
        let watcher = try TestMQTTClient(brokerURL: broker.url)
        try await watcher.connect()
        try await watcher.subscribeAndSettle("\(prefix)/#")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = ["--broker", broker.url, "--node-id", nodeID, "--database", database,
                             "--audio-sink", "fake", "--log-level", "warning"]
        let clock = ContinuousClock()
        let start = clock.now
        try process.run()
        _ = try await watcher.first(timeout: .seconds(60)) {
            $0.topic == TopicLayout(prefix: prefix).status && String(decoding: $0.payload, as: UTF8.self) == "online"
        }
        let toOnline = clock.now - start
        let message = try await watcher.first(timeout: .seconds(60)) { $0.topic == TopicLayout(prefix: prefix).nowPlaying }
        let toNowPlaying = clock.now - start
        process.terminate()
        process.waitUntilExit()
        await watcher.disconnect()
        return (toOnline, toNowPlaying, try JSONValue(parsing: message.payload))
    }
}
