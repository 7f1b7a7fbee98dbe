import ArgumentParser
import Dispatch
import Foundation
import Logging
import MQTTTransport
import MediaNode
import MediaNodeTesting
import Playback

/// Round trip of a trivial command through the node, beside a bare request/response between two plain
/// libmosquitto clients through the same broker (the floor).
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
        let broker = try MosquittoBroker()
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

        let requester = try Requester(url: url, replyTopics: ["bench/reply", configuration.topics.result])
        try await Task.sleep(for: .milliseconds(500))

        let nodeTopic = configuration.topics.command(command)
        let body = Array(payload.utf8)
        let (requests, warmup) = (requests, warmup)
        let (nodeSamples, floorSamples) = await onDedicatedThread {
            requester.measureInterleaved(
                subject: nodeTopic, floor: "bench/request", payload: body, count: requests, warmup: warmup, block: 500)
        }
        report("Command round trip, QoS 1 request and reply, one in flight (\(requests) each):",
               subject: ("through medianode (\(command))", nodeSamples),
               floor: ("floor: bare request/response, two clients", floorSamples))

        await node.shutdown()
        await nodeTask.value
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
        var subjectSamples = LatencySamples()
        var floorSamples = LatencySamples()
        _ = measure(topic: subject, payload: payload, count: warmup)
        _ = measure(topic: floor, payload: payload, count: warmup)
        var done = 0
        while done < count {
            let size = min(block, count - done)
            subjectSamples.values += measure(topic: subject, payload: payload, count: size).values
            floorSamples.values += measure(topic: floor, payload: payload, count: size).values
            done += size
        }
        return (subjectSamples, floorSamples)
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
