import ArgumentParser
import CatalogStore
import Foundation
import GStreamerAudio
import Logging
import MQTTTransport
import MediaJSON
import MediaNode
import MediaNodeFixtures
import Synchronization

/// The now-playing center: what steady playback costs on the wire, how big a now-playing message is, how
/// soon a track change (a natural end, and nextTrack) reaches a subscriber beside a bare playbin's own
/// notice of it, and what artwork processing costs beside gdk-pixbuf decoding and scaling alone.
///
/// The node runs in this process with its real transport, catalog file and GStreamer engine rendering
/// into its `wav:` sink; a poller reads the file as it grows, so the node's own code is measured unchanged.
struct NowPlayingBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "nowplaying",
        abstract: "Now playing: steady-playback traffic, message size, track change -> message, artwork processing.")

    @Option(help: "Seconds of steady playback counted.") var steadySeconds = 60.0
    @Option(help: "Tone tracks (each after a silent one) whose natural start is measured.") var trackChanges = 100
    @Option(help: "Seconds of each generated track.") var trackSeconds = 0.5
    @Option(help: "nextTrack requests measured, for the node and for the floor.") var skips = 100
    @Option(help: "Repetitions of each artwork picture, for the node's processor and for the floor.") var pictures = 20
    @Option(name: .customLong("metrics-interval"),
            help: "The node's P/metrics interval in seconds, as the daemon's flag (0: none); steady playback then shows it.")
    var metricsInterval = Double(MetricsSettings.defaultInterval.components.seconds)

    func run() async throws {
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = .warning
            return handler
        }
        let directory = try AudioFixtures.makeTemporaryDirectory("bench-nowplaying")
        defer { try? FileManager.default.removeItem(at: directory) }
        let setup = try await BenchLibrary.make(
            in: directory, tracks: 2 * trackChanges, trackSeconds: trackSeconds,
            steadySeconds: steadySeconds + 8)

        let broker = try await MosquittoBroker()
        defer { broker.stop() }
        let url = try BrokerURL(parsing: broker.url)
        let wav = directory.appendingPathComponent("out.wav")
        var configuration = NodeConfiguration(
            broker: url, nodeID: "bench-np", libraries: [setup.library.path], databasePath: setup.databasePath,
            audioSink: "wav:\(wav.path)")
        configuration.metrics.interval = metricsInterval > 0 ? .milliseconds(Int(metricsInterval * 1000)) : nil
        let database = try CatalogDatabase(path: setup.databasePath)
        let engine = try GStreamerEngine(sink: configuration.audioSink)
        let node = Node(configuration: configuration, transport: try MQTTClient(configuration: configuration.mqttConfiguration),
                        engine: engine, catalog: database)
        let nodeTask = Task { await node.run() }
        let listener = try Listener(url: url, topics: configuration.topics)
        let commander = try Commander(url: url, topics: configuration.topics)
        try await Task.sleep(for: .seconds(1))
        let toneStarts = ToneStartProbe()
        let poller = try WAVPoller(path: wav.path, probe: toneStarts)

        let rig = TrackChangeRig(
            commander: commander, listener: listener, toneStarts: toneStarts, setup: setup, trackSeconds: trackSeconds)
        let (steadySeconds, trackChanges, skips) = (steadySeconds, trackChanges, skips)
        await onDedicatedThread { rig.measureSteady(seconds: steadySeconds) }
        let endOfStream = try await onDedicatedThread { Result { try rig.measureEndOfStream(count: trackChanges) } }.get()
        endOfStream.print(title: "track change at the natural end of an item (gapless) -> the new now playing")
        let next = try await onDedicatedThread { Result { try rig.measureNextTrack(count: skips) } }.get()
        next.print(title: "nextTrack -> the new now playing")
        listener.printMessageSizes()
        poller.stop()

        await node.shutdown()
        await nodeTask.value
        await commander.client.shutdown()
        await listener.client.shutdown()
        try? database.close()

        try await ArtworkBench.run(repetitions: pictures, in: directory)
    }
}

/// The generated music: one album alternating silent and tone tracks (so the output says when a tone
/// track starts), one long tone for steady playback, scanned into a real catalog file.
struct BenchLibrary: Sendable {
    let library: URL
    let databasePath: String
    /// The album's files in track order, and their catalog identifiers.
    let albumFiles: [URL]
    let albumIdentifiers: [String]
    /// A second album of long tones, for nextTrack.
    let skipFiles: [URL]
    let skipIdentifiers: [String]
    let steadyIdentifier: String

    static func make(in directory: URL, tracks: Int, trackSeconds: Double, steadySeconds: Double) async throws -> BenchLibrary {
        let library = directory.appendingPathComponent("library")
        var files: [URL] = []
        for index in 0..<tracks {
            let file = library.appendingPathComponent("Bench Album/\(String(format: "%03d", index + 1)).ogg")
            try await writeTrack(file, silent: index % 2 == 0, seconds: trackSeconds, title: "Track \(index + 1)",
                           album: "Bench Album", number: index + 1)
            files.append(file)
        }
        let steady = library.appendingPathComponent("Steady/steady.ogg")
        try await writeTrack(steady, silent: false, seconds: steadySeconds, title: "Steady", album: "Steady", number: 1)
        var skipFiles: [URL] = []
        for index in 0..<5 {
            let file = library.appendingPathComponent("Skip Album/\(index + 1).ogg")
            try await writeTrack(file, silent: false, seconds: 30, title: "Skip \(index + 1)", album: "Skip Album", number: index + 1)
            skipFiles.append(file)
        }
        let databasePath = directory.appendingPathComponent("catalog.sqlite").path
        let database = try CatalogDatabase(path: databasePath)
        let provider = LocalFolderProvider(roots: [library])
        if case let .failed(message) = await CatalogRefresher(database: database).refresh(provider) {
            throw BenchError("cannot scan the bench library: \(message)")
        }
        try database.close()
        let source = provider.source.identifier
        func identifier(_ file: URL) -> String { StableIdentifier.make("track", key: source + "\n" + file.path) }
        return BenchLibrary(library: library, databasePath: databasePath, albumFiles: files,
                            albumIdentifiers: files.map(identifier), skipFiles: skipFiles,
                            skipIdentifiers: skipFiles.map(identifier), steadyIdentifier: identifier(steady))
    }

    /// Ogg Vorbis, 44.1 kHz stereo, exact to 10 ms, tagged as an album track.
    static func writeTrack(_ url: URL, silent: Bool, seconds: Double, title: String, album: String, number: Int) async throws {
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        let tags = "title=(string)\\\"\(title)\\\",artist=(string)\\\"Bench Artist\\\",album=(string)\\\"\(album)\\\","
            + "track-number=(uint)\(number)"
        let (status, output) = try await ToolRun.capture("gst-launch-1.0", [
            "-q", "audiotestsrc", "wave=\(silent ? "silence" : "sine")", "freq=440", "volume=0.5", "samplesperbuffer=441",
            "num-buffers=\(max(1, Int((seconds * 100).rounded())))", "!", "audio/x-raw,rate=44100,channels=2", "!",
            "taginject", "tags=\"\(tags)\"", "!", "audioconvert", "!", "vorbisenc", "!", "oggmux", "!",
            "filesink", "location=\(url.path)",
        ])
        guard status == 0 else { throw BenchError("cannot write \(url.path): \(output)") }
    }
}

/// Every message under the node's prefix, with the moment it arrived (monotonic nanoseconds), recorded on
/// libmosquitto's network thread without any hop.
final class Listener: Sendable {
    struct Arrival: Sendable {
        var topic: String
        /// Topic and payload bytes.
        var bytes: Int
        var time: Int64
        /// Parsed now-playing documents only.
        var nowPlaying: JSONValue?
    }

    /// Shared with the network thread's handler.
    final class Log: Sendable {
        let arrivals = Mutex<[Arrival]>([])
    }

    let client: MQTTClient
    let topics: TopicLayout
    private let log = Log()

    init(url: BrokerURL, topics: TopicLayout) throws {
        let log = self.log
        self.topics = topics
        let nowPlayingTopic = topics.nowPlaying
        client = try MQTTClient(configuration: MQTTConfiguration(broker: url, clientID: "bench-listener")) { message in
            let time = monotonicNanoseconds()
            let document = message.topic == nowPlayingTopic ? try? JSONValue(parsing: message.payload) : nil
            let arrival = Arrival(topic: message.topic, bytes: message.topic.utf8.count + message.payload.count,
                                  time: time, nowPlaying: document)
            log.arrivals.withLock { $0.append(arrival) }
        }
        client.start()
        try client.subscribe("\(topics.prefix)/#", qos: 1)
    }

    func all() -> [Arrival] { log.arrivals.withLock { $0 } }

    /// The first now playing naming `identifier` that arrived after `time`, waiting up to `timeout` seconds.
    func nowPlaying(_ identifier: String, after time: Int64, timeout: Double = 10) -> Arrival? {
        let deadline = monotonicNanoseconds() + Int64(timeout * 1e9)
        repeat {
            let found = log.arrivals.withLock { list in
                list.first { $0.time > time && $0.nowPlaying?["identifier"] == .string(identifier) }
            }
            if let found { return found }
            usleep(100)
        } while monotonicNanoseconds() < deadline
        return nil
    }

    /// The size of every now-playing message of the run.
    func printMessageSizes() {
        let sizes = all().filter { $0.topic == topics.nowPlaying }.map { Double($0.bytes - topics.nowPlaying.utf8.count) }
            .sorted()
        guard let smallest = sizes.first, let largest = sizes.last else { return }
        print("bytes per now-playing message (payload; \(sizes.count) messages in this run):")
        print(String(format: "  p50 %.0f B, smallest %.0f B, largest %.0f B, mean %.0f B",
                     sizes[sizes.count / 2], smallest, largest, sizes.reduce(0, +) / Double(sizes.count)))
    }
}
