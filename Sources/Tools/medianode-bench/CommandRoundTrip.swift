import ArgumentParser
import Dispatch
import Foundation
import Logging
import MQTTTransport
import MediaNode
import MediaNodeFixtures
import NodeMetrics
import Playback

/// Round trip of a trivial command through the node, beside a bare request/response between two plain
/// libmosquitto clients through the same broker (the floor), and through a second node that counts its
/// health metrics (P/metrics every second), to show what counting costs the command path.
struct CommandRoundTrip: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "round-trip", abstract: "Command -> reply latency through the node vs two bare clients.")

    @Option(help: "Requests per measured run.") var requests = 5000
    @Option(help: "Unmeasured requests first.") var warmup = 500
    @Option(help: "The command sent to the node.") var command = "changeRepeatMode"
    @Option(help: "Its payload.") var payload = #"{"repeatType":"off"}"#

    func run() async throws {
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = .warning
            return handler
        }
        let broker = try await MosquittoBroker()
        defer { broker.stop() }
        let url = try BrokerURL(parsing: broker.url)

        // The floor: a responder that answers inside libmosquitto's callback, no hop at all.
        let responderBox = ClientBox()
        let responder = try MQTTClient(
            configuration: MQTTConfiguration(broker: url, clientID: "bench-responder")
        ) { message in
            try? responderBox.client?.publish(topic: "bench/reply", payload: message.payload, qos: 1)
        }
        responderBox.client = responder
        responder.start()
        try responder.subscribe("bench/request", qos: 1)

        // The node, in this process, with its real transport; an in-memory engine, so the command runs its real
        // handler through the playback controller without the cost of audio (command-effect measures that).
        let configuration = NodeConfiguration(broker: url, nodeID: "bench", databasePath: ":memory:", audioSink: "fake")
        let node = Node(configuration: configuration, transport: try MQTTClient(configuration: configuration.mqttConfiguration),
                        engine: InMemoryAudioEngine(clock: SystemPlaybackClock()))
        let nodeTask = Task { await node.run() }
        // The same node with its health metrics on, publishing P/metrics every second of the run.
        var metered = NodeConfiguration(broker: url, nodeID: "bench-metrics", databasePath: ":memory:", audioSink: "fake")
        metered.metrics = MetricsSettings(interval: .seconds(1))
        let metrics = NodeMetricsBackend()
        let meteredNode = Node(
            configuration: metered, transport: try MQTTClient(configuration: metered.mqttConfiguration(metrics: metrics)),
            engine: InMemoryAudioEngine(clock: SystemPlaybackClock()), metrics: metrics)
        let meteredTask = Task { await meteredNode.run() }

        let requester = try Requester(
            url: url, replyTopics: ["bench/reply", configuration.topics.result, metered.topics.result])
        try await Task.sleep(for: .milliseconds(500))

        let body = Array(payload.utf8)
        let (requests, warmup) = (requests, warmup)
        let topics = [configuration.topics.command(command), metered.topics.command(command), "bench/request"]
        let samples = await onDedicatedThread {
            requester.measureInterleaved(topics: topics, payload: body, count: requests, warmup: warmup, block: 500)
        }
        report("Command round trip, QoS 1 request and reply, one in flight (\(requests) each):",
               subject: ("through medianode (\(command))", samples[0]),
               floor: ("floor: bare request/response, two clients", samples[2]))
        report("The same node with its health metrics on (P/metrics every second), in the same run:",
               subject: ("through medianode, metrics on", samples[1]),
               floor: ("through medianode, metrics off", samples[0]))

        await node.shutdown()
        await nodeTask.value
        await meteredNode.shutdown()
        await meteredTask.value
        await requester.client.shutdown()
        await responder.shutdown()
    }
}

/// Runs blocking measurement code on a thread of its own, so the cooperative pool stays free for the node.
func onDedicatedThread<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        Thread { continuation.resume(returning: body()) }.start()
    }
}

/// Lets the responder's handler reach its own client, created after the handler.
final class ClientBox: @unchecked Sendable {
    var client: MQTTClient?
}

/// Sends one request at a time and times until its reply arrives on the network thread.
final class Requester: @unchecked Sendable {
    let client: MQTTClient
    private let replied = DispatchSemaphore(value: 0)

    init(url: BrokerURL, replyTopics: [String]) throws {
        let semaphore = replied
        client = try MQTTClient(configuration: MQTTConfiguration(broker: url, clientID: "bench-requester")) { _ in
            semaphore.signal()
        }
        client.start()
        for topic in replyTopics { try client.subscribe(topic, qos: 1) }
    }

    /// Measures `subject` and `floor` alternately in blocks, so machine noise hits both alike.
    /// Blocks the calling thread: call it from `onDedicatedThread`.
    func measureInterleaved(subject: String, floor: String, payload: [UInt8], count: Int, warmup: Int, block: Int)
        -> (subject: LatencySamples, floor: LatencySamples) {
        let samples = measureInterleaved(topics: [subject, floor], payload: payload, count: count, warmup: warmup, block: block)
        return (samples[0], samples[1])
    }

    /// Measures each topic in turn, in blocks, so machine noise hits them alike; one sample list per topic.
    /// Blocks the calling thread: call it from `onDedicatedThread`.
    func measureInterleaved(topics: [String], payload: [UInt8], count: Int, warmup: Int, block: Int) -> [LatencySamples] {
        var samples = [LatencySamples](repeating: LatencySamples(), count: topics.count)
        for topic in topics { _ = measure(topic: topic, payload: payload, count: warmup) }
        var done = 0
        while done < count {
            let size = min(block, count - done)
            for (index, topic) in topics.enumerated() {
                samples[index].values += measure(topic: topic, payload: payload, count: size).values
            }
            done += size
        }
        return samples
    }

    /// Blocks the calling thread: call it from `onDedicatedThread`.
    func measure(topic: String, payload: [UInt8], count: Int) -> LatencySamples {
        var samples = LatencySamples()
        let clock = ContinuousClock()
        for _ in 0..<count {
            let start = clock.now
            try? client.publish(topic: topic, payload: payload, qos: 1)
            if replied.wait(timeout: .now() + 5) == .timedOut {
                print("warning: no reply within 5 s")
                continue
            }
            samples.append(clock.now - start)
        }
        return samples
    }
}
