import ArgumentParser
import CatalogStore
import Dispatch
import Foundation
import GStreamerAudio
import Logging
import MQTTTransport
import MediaNode
import MediaJSON
import MediaNodeTesting
import Synchronization

/// Command-to-effect latency: from publishing cmd/play, cmd/changePlaybackPosition and cmd/pause to the
/// reply, and to the audio effect (the first buffer rendered after play, the first buffer of the new
/// place after a seek, the last buffer rendered after pause), beside the same operations called directly
/// on a bare playbin with the same filter and sink (GStreamer's floor), in the same run.
///
/// The node renders into its `wav:` sink; a poller reads the file as it grows (every 50 µs), so the
/// node's own code is measured unchanged. The bare playbin's fakesink hands its buffers over directly.
/// The item is 10 s of silence then 10 s of tone, so "the first buffer of the new place" is the first
/// audible one after seeking from the silence (2 s) into the tone (12 s).
struct CommandEffect: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "command-effect",
        abstract: "play / changePlaybackPosition / pause: publish -> reply and -> audio effect, vs a bare playbin.")

    @Option(help: "Measured repetitions of each operation, for the node and for the floor.") var repetitions = 50

    func run() async throws {
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = .warning
            return handler
        }
        let directory = try AudioFixtures.makeTemporaryDirectory("bench-effect")
        defer { try? FileManager.default.removeItem(at: directory) }
        let library = directory.appendingPathComponent("library")
        try FileManager.default.createDirectory(at: library, withIntermediateDirectories: true)
        let item = library.appendingPathComponent("silence-then-tone.ogg")
        try writeSilenceThenTone(to: item)
        let wav = directory.appendingPathComponent("out.wav")

        let broker = try MosquittoBroker()
        defer { broker.stop() }
        let url = try BrokerURL(parsing: broker.url)
        let configuration = NodeConfiguration(
            broker: url, nodeID: "bench-effect", libraries: [library.path],
            databasePath: directory.appendingPathComponent("catalog.sqlite").path, audioSink: "wav:\(wav.path)")
        // The catalog as the node's catalog service leaves it after scanning the library.
        let catalog = try CatalogDatabase(path: configuration.databasePath)
        _ = await CatalogRefresher(database: catalog).refresh(LocalFolderProvider(roots: [library]))
        let engine = try GStreamerEngine(sink: configuration.audioSink)
        let node = Node(configuration: configuration, transport: try MQTTClient(configuration: configuration.mqttConfiguration),
                        engine: engine, catalog: catalog)
        let nodeTask = Task { await node.run() }
        let commander = try Commander(url: url, topics: configuration.topics)
        try await queue(item, library: library, with: commander)

        // The MQTT floor: a bare client answering on P/result from its network thread, with a reply of
        // the size the node sends, so the node's share can be told from the broker's.
        let echo = try EchoResponder(url: url, replySize: 96, requestTopic: "bench/request", replyTopic: configuration.topics.result)
        try await Task.sleep(for: .milliseconds(300))
        let nodeProbe = RenderProbe()
        let poller = try WAVPoller(path: wav.path, probe: nodeProbe)
        let bare = try BarePlaybin(uri: "file://" + item.path)
        let repetitions = repetitions
        let results = await onDedicatedThread {
            var results = EffectResults()
            guard commander.send("changePlaybackPosition", #"{"positionTime":2}"#) else { return results }
            let block = 10
            var done = 0
            // Interleave the two in blocks so machine noise hits both alike; the first block warms up.
            var warmup = true
            while done < repetitions {
                var nodeBlock = EffectResults(), floorBlock = EffectResults()
                for _ in 0..<block {
                    measureNode(commander, nodeProbe, into: &nodeBlock)
                    measureTransport(commander, into: &floorBlock)
                }
                for _ in 0..<block { measureFloor(bare, into: &floorBlock) }
                if warmup {
                    warmup = false
                    continue
                }
                results.merge(nodeBlock, floorBlock)
                done += block
            }
            return results
        }
        poller.stop()
        results.print(repetitions: repetitions)

        await node.shutdown()
        await nodeTask.value
        await commander.client.shutdown()
        await echo.client.shutdown()
    }
}

/// Queues the item without playing it (S32), once the catalog has scanned the library.
private func queue(_ item: URL, library: URL, with commander: Commander) async throws {
    let source = LocalFolderProvider(roots: [library]).source.identifier
    let identifier = StableIdentifier.make("track", key: source + "\n" + item.path)
    let payload = #"{"identifiers":["\#(identifier)"]}"#
    for _ in 0..<50 {
        if commander.send("prepareQueue", payload), commander.lastStatus?.hasPrefix("success") == true { return }
        try await Task.sleep(for: .milliseconds(100))
    }
    throw BenchError("the node never queued \(item.lastPathComponent): \(commander.lastStatus ?? "no reply")")
}

/// One operation's samples: the reply (or the direct call's return) and the audio effect.
struct OperationSamples {
    var reply = LatencySamples()
    var effect = LatencySamples()
}

struct EffectResults {
    var node: [String: OperationSamples] = [:]
    var floor: [String: OperationSamples] = [:]
    /// Request to reply between two bare clients through the same broker, while the node's audio is
    /// paused and while it plays (its streaming threads then compete for the cores): each operation is
    /// set beside the one measured in the state it starts from.
    var transportPaused = LatencySamples()
    var transportPlaying = LatencySamples()
    static let operations = ["play", "changePlaybackPosition", "pause"]

    mutating func record(_ operation: String, floor isFloor: Bool, start: Int64, reply: Int64, effect: Int64?) {
        var samples = (isFloor ? floor[operation] : node[operation]) ?? OperationSamples()
        samples.reply.append(nanoseconds: reply - start)
        if let effect { samples.effect.append(nanoseconds: max(0, effect - start)) }
        if isFloor { floor[operation] = samples } else { node[operation] = samples }
    }

    mutating func merge(_ nodeBlock: EffectResults, _ floorBlock: EffectResults) {
        transportPaused.values += floorBlock.transportPaused.values
        transportPlaying.values += nodeBlock.transportPlaying.values
        for operation in Self.operations {
            for (source, isFloor) in [(nodeBlock.node, false), (floorBlock.floor, true)] {
                guard let block = source[operation] else { continue }
                var samples = (isFloor ? floor[operation] : node[operation]) ?? OperationSamples()
                samples.reply.values += block.reply.values
                samples.effect.values += block.effect.values
                if isFloor { floor[operation] = samples } else { node[operation] = samples }
            }
        }
    }

    func print(repetitions: Int) {
        let effects = [
            "play": "first buffer rendered", "changePlaybackPosition": "first buffer of the new place",
            "pause": "last buffer rendered after publish (0: none came)",
        ]
        for operation in Self.operations {
            let subject = node[operation] ?? OperationSamples(), base = floor[operation] ?? OperationSamples()
            report("\(operation): publish -> reply vs the direct call's return (\(repetitions) each):",
                   subject: ("medianode: reply on P/result", subject.reply),
                   floor: ("floor: bare playbin call returned", base.reply))
            // The node's reply crosses the broker twice; the bare call does not. Both floors together:
            let playing = operation != "play"
            let transport = playing ? transportPlaying : transportPaused
            let both = base.reply.median + transport.median
            Swift.print(String(format: "  %-46@ n=%6d  p50 %8.1f µs  p90 %8.1f µs  p99 %8.1f µs",
                         "floor: bare MQTT request -> reply, \(playing ? "playing" : "paused")" as NSString,
                         transport.values.count, transport.median, transport.percentile(90), transport.percentile(99)))
            Swift.print(String(format: "  the two floors' p50s added: %.1f µs; medianode's own share of its p50: %.1f µs",
                         both, subject.reply.median - both))
            report("\(operation): publish -> \(effects[operation]!) vs the same on a bare playbin:",
                   subject: ("medianode: \(effects[operation]!)", subject.effect),
                   floor: ("floor: \(effects[operation]!)", base.effect))
        }
    }
}

/// One cycle on the node: paused at 2 s (silence) -> play -> seek to 12 s (tone) -> pause -> back to 2 s.
func measureNode(_ commander: Commander, _ probe: RenderProbe, into results: inout EffectResults) {
    var start = monotonicNanoseconds()
    guard commander.send("play", "{}") else { return }
    results.record("play", floor: false, start: start, reply: monotonicNanoseconds(), effect: probe.firstBuffer(after: start))
    usleep(150_000)
    start = monotonicNanoseconds()
    guard commander.send("changePlaybackPosition", #"{"positionTime":12}"#) else { return }
    let seekReply = monotonicNanoseconds()
    results.record("changePlaybackPosition", floor: false, start: start, reply: seekReply,
                   effect: probe.firstBuffer(after: start, loud: true))
    usleep(100_000)
    // The MQTT floor while the node plays, as the pause below finds it.
    start = monotonicNanoseconds()
    if commander.send(topic: "bench/request", "{}") {
        results.transportPlaying.append(nanoseconds: monotonicNanoseconds() - start)
    }
    usleep(50_000)
    start = monotonicNanoseconds()
    guard commander.send("pause", "{}") else { return }
    let pauseReply = monotonicNanoseconds()
    results.record("pause", floor: false, start: start, reply: pauseReply, effect: probe.lastBuffer())
    _ = commander.send("changePlaybackPosition", #"{"positionTime":2}"#)
}

/// One request/reply between the commander and a bare echo client through the same broker.
func measureTransport(_ commander: Commander, into results: inout EffectResults) {
    let start = monotonicNanoseconds()
    guard commander.send(topic: "bench/request", "{}") else { return }
    results.transportPaused.append(nanoseconds: monotonicNanoseconds() - start)
}

/// The same cycle called directly on the bare playbin.
func measureFloor(_ bare: BarePlaybin, into results: inout EffectResults) {
    let probe = bare.probe
    var start = monotonicNanoseconds()
    bare.play()
    results.record("play", floor: true, start: start, reply: monotonicNanoseconds(), effect: probe.firstBuffer(after: start))
    usleep(150_000)
    start = monotonicNanoseconds()
    bare.seek(to: 12)
    let seekReturn = monotonicNanoseconds()
    results.record("changePlaybackPosition", floor: true, start: start, reply: seekReturn,
                   effect: probe.firstBuffer(after: start, loud: true))
    usleep(150_000)
    start = monotonicNanoseconds()
    bare.pause()
    let pauseReturn = monotonicNanoseconds()
    results.record("pause", floor: true, start: start, reply: pauseReturn, effect: probe.lastBuffer())
    bare.seek(to: 2)
}

/// Publishes one command at a time (QoS 1) and blocks until its reply arrives on P/result.
final class Commander: @unchecked Sendable {
    let client: MQTTClient
    let topics: TopicLayout
    private let replied = DispatchSemaphore(value: 0)
    private let status = LastStatus()

    /// The status of the last reply (read after `send` returned true).
    var lastStatus: String? { status.value.withLock { $0 } }

    init(url: BrokerURL, topics: TopicLayout) throws {
        let semaphore = replied
        let status = status
        self.topics = topics
        client = try MQTTClient(configuration: MQTTConfiguration(broker: url, clientID: "bench-commander")) { message in
            let reply = try? JSONValue(parsing: message.payload)
            status.value.withLock { $0 = reply.map { "\($0["status"]?.stringValue ?? "?"): \($0["message"]?.stringValue ?? "")" } }
            semaphore.signal()
        }
        client.start()
        try client.subscribe(topics.result, qos: 1)
    }

    /// Blocks the calling thread until the reply; false if none came within 5 s.
    func send(_ command: String, _ payload: String) -> Bool {
        send(topic: topics.command(command), payload)
    }

    func send(topic: String, _ payload: String) -> Bool {
        try? client.publish(topic: topic, payload: Array(payload.utf8), qos: 1)
        if replied.wait(timeout: .now() + 5) == .timedOut {
            Swift.print("warning: no reply on \(topic) within 5 s")
            return false
        }
        return true
    }
}

private final class LastStatus: Sendable {
    let value = Mutex<String?>(nil)
}

/// 10 s of silence, then 10 s of a 440 Hz tone, as Ogg Vorbis.
func writeSilenceThenTone(to url: URL) throws {
    let raw = "audio/x-raw,rate=44100,channels=2"
    let arguments = [
        "-q", "concat", "name=c", "!", "audioconvert", "!", "vorbisenc", "!", "oggmux", "!", "filesink",
        "location=\(url.path)",
        "audiotestsrc", "wave=silence", "samplesperbuffer=441", "num-buffers=1000", "!", raw, "!", "c.",
        "audiotestsrc", "freq=440", "volume=0.5", "samplesperbuffer=441", "num-buffers=1000", "!", raw, "!", "c.",
    ]
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["gst-launch-1.0"] + arguments
    try process.run()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else { throw BenchError("gst-launch-1.0 could not write \(url.path)") }
}
