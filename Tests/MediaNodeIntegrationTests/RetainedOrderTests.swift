import Dispatch
import MQTTTransport
import MediaJSON
import MediaNode
import MediaNodeTesting
import Synchronization
import Testing

/// S19 after a connect: the node sends its status and capabilities before anything else, even when
/// another part of the node publishes at that very moment.
///
/// The one test with a stand-in transport: the interleaving it needs (a publish from another task while
/// the node is in the middle of re-sending its state) cannot be produced on demand through a real broker.
/// The start-order test of `NodeProcessTests` checks the same order against mosquitto, as timing allows.
@Suite("Retained state after a connect")
struct RetainedOrderTests {
    @Test("a tree change racing the connect goes out after status and commands, never between them")
    func treeChangeDuringConnect() async throws {
        let transport = ScriptedTransport()
        let configuration = NodeConfiguration(nodeID: "race", databasePath: "")
        let topics = configuration.topics
        let node = Node(configuration: configuration, transport: transport, catalog: InMemoryContentCatalog())
        let run = Task { await node.run() }
        await node.waitUntilStarted()
        #expect(transport.sent.isEmpty, "nothing goes out before the connect")

        // While the node sends P/status, the tree changes on another task. Whatever that task publishes
        // must wait until status and capabilities are out; the hook gives it half a second to jump ahead.
        transport.whenSending(topics.status) {
            let published = DispatchSemaphore(value: 0)
            Task {
                await node.setEmptyRootReason(.offline)
                published.signal()
            }
            _ = published.wait(timeout: .now() + 0.5)
        }
        transport.connect()

        let deadline = ContinuousClock.now + .seconds(10)
        while !transport.sent.contains(where: { $0.topic == topics.contentTree && $0.payload.contains("offline") }),
              ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(10))
        }
        let sent = transport.sent.map(\.topic)
        let status = try #require(sent.firstIndex(of: topics.status), "sent: \(sent)")
        let commands = try #require(sent.firstIndex(of: topics.commands), "sent: \(sent)")
        let offlineRoot = try #require(
            transport.sent.firstIndex { $0.topic == topics.contentTree && $0.payload.contains("offline") },
            "the tree change was published: \(sent)")
        #expect(status == 0 && status < commands && commands < offlineRoot, "sent: \(sent)")

        await node.shutdown()
        run.cancel()
        _ = await run.value
    }
}

/// Records what the node publishes, in order, and runs a hook inside the first publish of a topic; its
/// connection is whatever the test says.
private final class ScriptedTransport: MessageTransport, Sendable {
    struct Sent: Sendable {
        var topic: String
        var payload: String
    }

    let events: AsyncStream<MQTTEvent>
    private let continuation: AsyncStream<MQTTEvent>.Continuation
    private let log = Mutex<[Sent]>([])
    private let hook = Mutex<(topic: String, body: @Sendable () -> Void)?>(nil)

    init() {
        (events, continuation) = AsyncStream.makeStream(of: MQTTEvent.self, bufferingPolicy: .unbounded)
    }

    var sent: [Sent] { log.withLock { $0 } }

    func whenSending(_ topic: String, _ body: @escaping @Sendable () -> Void) {
        hook.withLock { $0 = (topic, body) }
    }

    func connect() { continuation.yield(.connected(sessionPresent: false)) }

    var protocolVersion: MQTTProtocolVersion { .v5 }
    func start() {}
    func route(_ router: @escaping @Sendable (MQTTMessage) -> Bool) {}

    func publish(topic: String, payload: [UInt8], qos: Int, retain: Bool, properties: MQTTProperties) throws(MQTTError) {
        log.withLock { $0.append(Sent(topic: topic, payload: String(decoding: payload, as: UTF8.self))) }
        let body = hook.withLock { hook -> (@Sendable () -> Void)? in
            guard let armed = hook, armed.topic == topic else { return nil }
            hook = nil
            return armed.body
        }
        body?()
    }

    func publishAndWait(topic: String, payload: [UInt8], retain: Bool, properties: MQTTProperties) async throws {
        try publish(topic: topic, payload: payload, qos: 1, retain: retain, properties: properties)
    }

    func subscribe(_ filter: String, qos: Int) throws(MQTTError) {}
    func flush() {}

    func shutdown() async { continuation.finish() }
}
