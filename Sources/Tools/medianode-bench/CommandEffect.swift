import ArgumentParser
import CatalogStore
import Dispatch
import Foundation
import GStreamerAudio
import Logging
import MQTTTransport
import MediaNode
import MediaJSON
import MediaNodeFixtures
import Synchronization

/// Command-to-effect latency: from publishing cmd/play, cmd/changePlaybackPosition and cmd/pause to the
/// reply, and to the audio effect (the first buffer rendered after play, the first buffer of the new
/// place after a seek), beside two floors measured in the same run:
/// the same operations called directly on a bare playbin with the same filter and sink (GStreamer's
/// floor), and the same requests answered by a bare MQTT client that makes that playbin call in its
/// message callback and replies from there (the least any node can do: broker there and back, plus
/// the call). The node's own share is its reply time minus the second.
///
/// The node and the bare playbin render into `wav:` sinks built alike, each followed by a poller that
/// reads its file as it grows, so both pay the same for writing and watching the audio and the node's
/// own code is measured unchanged.
/// The item is 10 s of silence then 10 s of tone, so "the first buffer of the new place" is the first
/// audible one after seeking from the silence (2 s) into the tone (12 s).
///
/// Pause has its reply but no effect figure: the sink renders in 10 ms buffers on the clock, and a pause
/// GStreamer takes within a millisecond or two almost never leaves a buffer after the publish to time, so
/// "the last buffer after publish" was 0 in nearly every cycle, for the node and the floors alike. The
/// reply is sent once playbin has taken the pause, so it is the pause's effect as far as this rig can see.
struct CommandEffect: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "command-effect",
        abstract: "play / changePlaybackPosition / pause: publish -> reply and -> audio effect, vs a bare playbin.")

    @Option(help: "Measured repetitions of each operation, for the node and for the floor.") var repetitions = 50
    @Option(help: ArgumentHelp("The item's format: ogg (Vorbis, decoded as it plays) or wav (nothing to decode, so "
        + "a seek leaves no burst of decoding on the cores the node needs)."))
    var format: ItemFormat = .ogg

    enum ItemFormat: String, ExpressibleByArgument, CaseIterable {
        case ogg, wav
    }

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
        let item = library.appendingPathComponent("silence-then-tone.\(format.rawValue)")
        try writeSilenceThenTone(to: item, format: format)
        let wav = directory.appendingPathComponent("out.wav")

        let broker = try await MosquittoBroker()
        defer { broker.stop() }
        let url = try BrokerURL(parsing: broker.url)
        let configuration = NodeConfiguration(
            broker: url, nodeID: "bench-effect", libraries: [library.path],
            databasePath: directory.appendingPathComponent("catalog.sqlite").path, audioSink: "wav:\(wav.path)")
        // The catalog as the node's catalog service leaves it after scanning the library.
        let catalog = try CatalogDatabase(path: configuration.databasePath)
        _ = await CatalogRefresher(database: catalog).refresh(LocalFolderProvider(roots: [library]))
        let engine = try GStreamerEngine(sink: configuration.audioSink)
        // Its play state and volume in the state file beside the catalog, as the daemon keeps them.
        let stateFile = try await NodeStateFile.beside(catalog)
        let node = Node(configuration: configuration, transport: try MQTTClient(configuration: configuration.mqttConfiguration),
                        engine: engine, catalog: catalog, stateFile: stateFile)
        let nodeTask = Task { await node.run() }
        let commander = try Commander(url: url, topics: configuration.topics)
        try await queue(item, library: library, with: commander)

        // The MQTT floor: a bare client answering on P/result from its network thread, with a reply of
        // the size the node sends, so the node's share can be told from the broker's.
        let echo = try EchoResponder(url: url, replySize: 96, requestTopic: "bench/request", replyTopic: configuration.topics.result)
        try await Task.sleep(for: .milliseconds(300))
        let nodeProbe = RenderProbe()
        let poller = try WAVPoller(path: wav.path, probe: nodeProbe)
        let bareWAV = directory.appendingPathComponent("bare.wav").path
        let bare = try BarePlaybin(uri: "file://" + item.path, output: .wav(path: bareWAV))
        let bareProbe = RenderProbe()
        let barePoller = try WAVPoller(path: bareWAV, probe: bareProbe)
        let responder = try PlaybinResponder(url: url, playbin: bare, replyTopic: configuration.topics.result)
        let repetitions = repetitions
        let results = await onDedicatedThread {
            var results = EffectResults()
            guard commander.send("changePlaybackPosition", #"{"positionTime":2}"#) else { return results }
            // One cycle of each in turn, so machine noise hits all alike and each node cycle has a
            // responder cycle beside it; the first cycles warm up.
            let warmup = 5
            for cycle in 0..<(warmup + repetitions) {
                var cycleResults = EffectResults()
                // Every step starts after the same idle time (how long the cores idled changes how long
                // their wake-ups take, so the node and its floors must find them alike).
                usleep(50_000)
                measureNode(commander, nodeProbe, into: &cycleResults)
                measureTransport(commander, into: &cycleResults)
                usleep(50_000)
                measureResponder(commander, bareProbe, into: &cycleResults)
                usleep(50_000)
                measureFloor(bare, bareProbe, into: &cycleResults)
                // A cycle with a missing reply is dropped whole, so node and responder samples stay paired.
                if cycle >= warmup, cycleResults.isComplete { results.merge(cycleResults) }
            }
            return results
        }
        poller.stop()
        barePoller.stop()
        results.print(repetitions: repetitions)

        await node.shutdown()
        await nodeTask.value
        await commander.client.shutdown()
        await echo.client.shutdown()
        await responder.client.shutdown()
    }
}

/// Queues the item without playing it (S32), once the catalog has scanned the library.
func queue(_ item: URL, library: URL, with commander: Commander) async throws {
    let source = LocalFolderProvider(roots: [library]).source.identifier
    let identifier = StableIdentifier.make("track", key: source + "\n" + item.path)
    let payload = #"{"identifiers":["\#(identifier)"]}"#
    // The node may not have subscribed yet: ask again until it answers.
    for _ in 0..<50 {
        if commander.send(topic: commander.topics.command("prepareQueue"), payload, timeout: 0.5, quiet: true),
           commander.lastStatus?.hasPrefix("success") == true { return }
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
    /// Who answered: the node, the bare MQTT client calling the playbin, or the direct call.
    enum Source: CaseIterable { case node, responder, call }

    var samples: [Source: [String: OperationSamples]] = [:]
    /// Request to reply between two bare clients through the same broker, while the node's audio is
    /// paused and while it plays, for context: the responder's figures include this.
    var transportPaused = LatencySamples()
    var transportPlaying = LatencySamples()
    static let operations = ["play", "changePlaybackPosition", "pause"]

    subscript(_ source: Source, _ operation: String) -> OperationSamples {
        samples[source]?[operation] ?? OperationSamples()
    }

    mutating func record(_ operation: String, _ source: Source, start: Int64, reply: Int64, effect: Int64? = nil) {
        var entry = self[source, operation]
        entry.reply.append(nanoseconds: reply - start)
        if let effect { entry.effect.append(nanoseconds: max(0, effect - start)) }
        samples[source, default: [:]][operation] = entry
    }

    /// Every operation has its reply from the node and from the responder.
    var isComplete: Bool {
        Self.operations.allSatisfy { self[.node, $0].reply.values.count == 1 && self[.responder, $0].reply.values.count == 1 }
    }

    mutating func merge(_ block: EffectResults) {
        transportPaused.values += block.transportPaused.values
        transportPlaying.values += block.transportPlaying.values
        for source in Source.allCases {
            for operation in Self.operations {
                var entry = self[source, operation]
                entry.reply.values += block[source, operation].reply.values
                entry.effect.values += block[source, operation].effect.values
                samples[source, default: [:]][operation] = entry
            }
        }
    }

    func print(repetitions: Int) {
        let effects = ["play": "first buffer rendered", "changePlaybackPosition": "first buffer of the new place"]
        func row(_ name: String, _ samples: LatencySamples) {
            Swift.print(String(format: "  %-46@ n=%6d  p50 %8.1f µs  p90 %8.1f µs  p99 %8.1f µs", name as NSString,
                               samples.values.count, samples.median, samples.percentile(90), samples.percentile(99)))
        }
        for operation in Self.operations {
            let node = self[.node, operation], responder = self[.responder, operation], call = self[.call, operation]
            report("\(operation): publish -> reply (\(repetitions) each):",
                   subject: ("medianode: reply on P/result", node.reply),
                   floor: ("floor: bare client calling playbin, reply", responder.reply))
            row("floor: the bare playbin call alone returned", call.reply)
            let playing = operation != "play"
            row("floor: bare MQTT request -> reply, \(playing ? "playing" : "paused")",
                playing ? transportPlaying : transportPaused)
            // Paired cycle by cycle, which drift between cycles cannot bias; difference of medians beside it.
            let paired = LatencySamples(values: zip(node.reply.values, responder.reply.values).map { $0 - $1 })
            Swift.print(String(format: "  medianode's own share: p50 %.1f µs minus the bare client's; cycle by cycle, median %.1f µs",
                               node.reply.median - responder.reply.median, paired.median))
            guard let effect = effects[operation] else { continue }
            report("\(operation): publish -> \(effect):",
                   subject: ("medianode", node.effect), floor: ("floor: bare client calling playbin", responder.effect))
            row("floor: the bare playbin call alone", call.effect)
        }
    }
}

/// One cycle on the node: paused at 2 s (silence) -> play -> seek to 12 s (tone) -> pause -> back to 2 s.
func measureNode(_ commander: Commander, _ probe: RenderProbe, into results: inout EffectResults) {
    var start = monotonicNanoseconds()
    guard commander.send("play", "{}") else { return }
    results.record("play", .node, start: start, reply: monotonicNanoseconds(), effect: probe.firstBuffer(after: start))
    usleep(150_000)
    start = monotonicNanoseconds()
    guard commander.send("changePlaybackPosition", #"{"positionTime":12}"#) else { return }
    let seekReply = monotonicNanoseconds()
    results.record("changePlaybackPosition", .node, start: start, reply: seekReply,
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
    results.record("pause", .node, start: start, reply: pauseReply)
    probe.waitUntilQuiet()
    _ = commander.send("changePlaybackPosition", #"{"positionTime":2}"#)
}

/// One request/reply between the commander and a bare echo client through the same broker.
func measureTransport(_ commander: Commander, into results: inout EffectResults) {
    let start = monotonicNanoseconds()
    guard commander.send(topic: "bench/request", "{}") else { return }
    results.transportPaused.append(nanoseconds: monotonicNanoseconds() - start)
}

/// The node's cycle, asked of the bare client that calls the playbin in its callback, with the same pauses
/// between the steps (how long the machine idled before a request changes how long its wake-ups take).
func measureResponder(_ commander: Commander, _ probe: RenderProbe, into results: inout EffectResults) {
    var start = monotonicNanoseconds()
    guard commander.send(topic: PlaybinResponder.topic("play"), "{}") else { return }
    results.record("play", .responder, start: start, reply: monotonicNanoseconds(), effect: probe.firstBuffer(after: start))
    usleep(150_000)
    start = monotonicNanoseconds()
    guard commander.send(topic: PlaybinResponder.topic("seek"), "12") else { return }
    let seekReply = monotonicNanoseconds()
    results.record("changePlaybackPosition", .responder, start: start, reply: seekReply,
                   effect: probe.firstBuffer(after: start, loud: true))
    usleep(100_000)
    _ = commander.send(topic: "bench/request", "{}")
    usleep(50_000)
    start = monotonicNanoseconds()
    guard commander.send(topic: PlaybinResponder.topic("pause"), "{}") else { return }
    let pauseReply = monotonicNanoseconds()
    results.record("pause", .responder, start: start, reply: pauseReply)
    probe.waitUntilQuiet()
    _ = commander.send(topic: PlaybinResponder.topic("seek"), "2")
}

/// A bare client that makes the playbin call a request names in libmosquitto's message callback and
/// replies from there with a reply of the node's size: no queue, no thread hop, no state.
final class PlaybinResponder: @unchecked Sendable {
    let client: MQTTClient

    static func topic(_ operation: String) -> String { "bench/playbin/\(operation)" }

    init(url: BrokerURL, playbin: BarePlaybin, replyTopic: String) throws {
        let box = ClientBox()
        let reply = [UInt8](repeating: UInt8(ascii: "x"), count: 96)
        client = try MQTTClient(configuration: MQTTConfiguration(broker: url, clientID: "bench-playbin")) { message in
            switch message.topic {
            case Self.topic("play"): playbin.play()
            case Self.topic("pause"): playbin.pause()
            case Self.topic("seek"): playbin.seek(to: Double(String(decoding: message.payload, as: UTF8.self)) ?? 0)
            default: return
            }
            try? box.client?.publish(topic: replyTopic, payload: reply, qos: 1)
        }
        box.client = client
        client.start()
        try client.subscribe(Self.topic("+"), qos: 1)
    }
}

/// The same cycle called directly on the bare playbin.
func measureFloor(_ bare: BarePlaybin, _ probe: RenderProbe, into results: inout EffectResults) {
    var start = monotonicNanoseconds()
    bare.play()
    results.record("play", .call, start: start, reply: monotonicNanoseconds(), effect: probe.firstBuffer(after: start))
    usleep(150_000)
    start = monotonicNanoseconds()
    bare.seek(to: 12)
    let seekReturn = monotonicNanoseconds()
    results.record("changePlaybackPosition", .call, start: start, reply: seekReturn,
                   effect: probe.firstBuffer(after: start, loud: true))
    usleep(150_000)
    start = monotonicNanoseconds()
    bare.pause()
    let pauseReturn = monotonicNanoseconds()
    results.record("pause", .call, start: start, reply: pauseReturn)
    probe.waitUntilQuiet()
    bare.seek(to: 2)
}

/// Publishes one command at a time (QoS 1) and blocks until its reply arrives on P/result.
final class Commander: @unchecked Sendable {
    let client: MQTTClient
    let topics: TopicLayout
    private let replied = DispatchSemaphore(value: 0)
    private let status = LastStatus()

    /// The status of the last reply (read after `send` returned true).
    var lastStatus: String? {
        guard let payload = status.value.withLock({ $0 }), let reply = try? JSONValue(parsing: payload) else { return nil }
        return "\(reply["status"]?.stringValue ?? "?"): \(reply["message"]?.stringValue ?? "")"
    }

    /// The last reply whole (read after `send` returned true).
    var lastReply: JSONValue? {
        status.value.withLock { $0 }.flatMap { try? JSONValue(parsing: $0) }
    }

    init(url: BrokerURL, topics: TopicLayout) throws {
        let semaphore = replied
        let status = status
        self.topics = topics
        // The reply is kept as it came and read only when asked for: the floors' replies are not parsed
        // either, so all three are timed alike.
        client = try MQTTClient(configuration: MQTTConfiguration(broker: url, clientID: "bench-commander")) { message in
            status.value.withLock { $0 = message.payload }
            semaphore.signal()
        }
        client.start()
        try client.subscribe(topics.result, qos: 1)
    }

    /// Blocks the calling thread until the reply; false if none came within 5 s.
    func send(_ command: String, _ payload: String) -> Bool {
        send(topic: topics.command(command), payload)
    }

    func send(topic: String, _ payload: String, timeout: Double = 5, quiet: Bool = false) -> Bool {
        // A reply that came after an earlier send gave up must not be taken for this one's.
        while replied.wait(timeout: .now()) == .success {}
        try? client.publish(topic: topic, payload: Array(payload.utf8), qos: 1)
        if replied.wait(timeout: .now() + timeout) == .timedOut {
            if !quiet { Swift.print("warning: no reply on \(topic) within \(timeout) s") }
            return false
        }
        return true
    }
}

private final class LastStatus: Sendable {
    let value = Mutex<[UInt8]?>(nil)
}

/// 10 s of silence, then 10 s of a 440 Hz tone, as Ogg Vorbis or WAV.
func writeSilenceThenTone(to url: URL, format: CommandEffect.ItemFormat) throws {
    let raw = "audio/x-raw,rate=44100,channels=2"
    let encoder = format == .ogg ? ["vorbisenc", "!", "oggmux"] : ["wavenc"]
    let arguments = [
        "-q", "concat", "name=c", "!", "audioconvert", "!"] + encoder + ["!", "filesink",
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
