import Foundation
import MQTTTransport
import MediaJSON
import MediaNodeTesting

/// A broker, a `medianode` process with a small library, and one MQTT 5 client that sends requests with
/// a response topic and correlation data and checks each reply as it comes.
struct FuzzRig {
    static let prefix = "medianode/fuzz"
    static let replyTopic = "fuzz-replies/answers"
    /// How long a request may wait for its reply before it counts as lost.
    static let lostAfter: Duration = .seconds(15)
    /// A reply later than this counts as late (`MEDIANODE_FUZZ_LATE_MS`; 5,000 is the contract's client).
    static let lateAfterMilliseconds =
        ProcessInfo.processInfo.environment["MEDIANODE_FUZZ_LATE_MS"].flatMap { Double($0) } ?? 8_000
    /// Requests in flight at once: enough that hostile requests meet others still being handled.
    static let concurrency = 4

    let broker: MosquittoBroker
    let node: NodeProcess
    let client: MQTTClient
    let ledger: ReplyLedger
    let database: String

    static func start(in scratch: URL, library: Bool = true) async throws -> FuzzRig {
        let broker = try await MosquittoBroker()
        let database = scratch.appendingPathComponent("fuzz.sqlite").path
        // Into a WAV file by default: it found engine stalls the real-time fake sink hides.
        // `MEDIANODE_FUZZ_SINK=fake` plays into the fake sink instead.
        let sink = ProcessInfo.processInfo.environment["MEDIANODE_FUZZ_SINK"] == "fake"
            ? "fake" : "wav:" + scratch.appendingPathComponent("fuzz.wav").path
        var arguments = ["--broker", broker.url, "--node-id", "fuzz", "--audio-sink", sink, "--database", database,
                         "--log-level", ProcessInfo.processInfo.environment["MEDIANODE_FUZZ_LOG_LEVEL"] ?? "info"]
        if library {
            let music = scratch.appendingPathComponent("music")
            try FileManager.default.createDirectory(at: music, withIntermediateDirectories: true)
            for track in AudioFixtures.album(count: 3, seconds: 20, album: "Fuzz", artist: "Rig", baseFrequency: 330) {
                _ = try await AudioFixtures.writeTone(track, in: music)
            }
            arguments += ["--library", music.path]
        }
        let ledger = ReplyLedger()
        let client = try MQTTClient(configuration: MQTTConfiguration(
            broker: try BrokerURL(parsing: broker.url), clientID: "fuzz-\(UUID().uuidString.prefix(8))",
            protocolVersion: .v5, reconnectDelay: (0, 1)))
        let events = client.events
        Task {
            for await event in events {
                guard case let .message(message) = event else { continue }
                await ledger.received(message)
            }
        }
        client.start()
        try await ledger.waitUntil(timeout: .seconds(10)) { _ in client.isConnected }
        try client.subscribe(replyTopic, qos: 1)
        try client.subscribe("\(prefix)/result", qos: 1)
        try client.subscribe("\(prefix)/status", qos: 1)
        try client.subscribe("\(prefix)/content/tree/0/1", qos: 1)
        try client.subscribe("\(prefix)/commands", qos: 1)
        let node = try NodeProcess(arguments: arguments)
        let ready: @Sendable (ReplyLedger.State) -> Bool
        if library { ready = { state in state.libraryListed } } else { ready = { state in state.commandsSeen } }
        do {
            try await ledger.waitUntil(timeout: .seconds(60), ready)
        } catch {
            throw FuzzRigError(message: "the node did not come up: \(error)\n\(node.log.suffix(3_000))")
        }
        return FuzzRig(broker: broker, node: node, client: client, ledger: ledger, database: database)
    }

    /// Sends the requests at `indices`, `concurrency` at a time, and checks each one's reply.
    func send(_ stream: FuzzStream, indices: Range<Int>) async throws {
        let next = Counter(indices.lowerBound)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<Self.concurrency {
                group.addTask {
                    while true {
                        let index = next.take()
                        guard index < indices.upperBound else { return }
                        guard node.process.isRunning else {
                            throw FuzzRigError(message: "the node exited before request #\(index) of seed \(stream.seed); "
                                + "log:\n\(node.log.suffix(2_000))")
                        }
                        let request = stream.request(at: index)
                        let reply = try await self.request(command: request.command, payload: request.payload, index: index)
                        await ledger.check(reply, for: request, index: index, seed: stream.seed)
                    }
                }
            }
            try await group.waitForAll()
        }
    }

    /// Publishes one request and waits for its reply on the response topic: nil when it is lost, `.some(nil)`
    /// when it is not JSON.
    func request(command: String, payload: [UInt8], index: Int) async throws -> JSONValue?? {
        let correlation = withUnsafeBytes(of: UInt64(index).bigEndian, Array.init)
        let sent = ContinuousClock.now
        try client.publish(
            topic: "\(Self.prefix)/cmd/\(command)", payload: payload, qos: 1,
            properties: MQTTProperties(responseTopic: Self.replyTopic, correlationData: correlation))
        return await ledger.reply(for: index, sentAt: sent, timeout: Self.lostAfter, request: "\(command)")
    }
}

struct FuzzRigError: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}

final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Int
    init(_ start: Int) { value = start }
    func take() -> Int { lock.withLock { defer { value += 1 }; return value } }
}

/// Every reply that arrived, by correlation, and what was wrong with them.
actor ReplyLedger {
    struct State: Sendable {
        var libraryListed = false
        var commandsSeen = false
    }

    private(set) var failures: [String] = []
    private(set) var resultCount = 0
    private(set) var sawOffline = false
    private(set) var slowest: (milliseconds: Double, request: String) = (0, "")
    private var state = State()
    private var replies: [Int: [JSONValue?]] = [:]
    private var waiters: [Int: CheckedContinuation<Void, Never>] = [:]

    func received(_ message: MQTTMessage) {
        switch message.topic {
        case FuzzRig.replyTopic:
            guard let data = message.properties.correlationData, data.count == 8 else {
                failures.append("a reply without its correlation data: \(String(decoding: message.payload, as: UTF8.self))")
                return
            }
            let index = Int(data.reduce(UInt64(0)) { $0 << 8 | UInt64($1) })
            replies[index, default: []].append(try? JSONValue(parsing: message.payload))
            if replies[index]!.count > 1 { failures.append("#\(index): \(replies[index]!.count) replies") }
            waiters.removeValue(forKey: index)?.resume()
        case "\(FuzzRig.prefix)/result":
            resultCount += 1
        case "\(FuzzRig.prefix)/status":
            if message.payload == Array("offline".utf8) { sawOffline = true }
        case "\(FuzzRig.prefix)/commands":
            state.commandsSeen = true
        default:
            if (try? JSONValue(parsing: message.payload))?["children"]?[0] != nil { state.libraryListed = true }
        }
    }

    func waitUntil(timeout: Duration, _ check: @escaping @Sendable (State) -> Bool) async throws {
        let deadline = ContinuousClock.now + timeout
        while !check(state) {
            guard ContinuousClock.now < deadline else { throw FuzzRigError(message: "timed out after \(timeout)") }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    /// The first reply for `index`, waiting up to `timeout`; nil when none came.
    func reply(for index: Int, sentAt: ContinuousClock.Instant, timeout: Duration, request: String) async -> JSONValue?? {
        if replies[index] == nil {
            let timer = Task {
                try? await Task.sleep(for: timeout)
                self.expire(index)
            }
            await withCheckedContinuation { waiters[index] = $0 }
            timer.cancel()
        }
        guard let first = replies[index]?.first else { return nil }
        let milliseconds = (ContinuousClock.now - sentAt) / .milliseconds(1)
        if milliseconds > slowest.milliseconds { slowest = (milliseconds, "#\(index) \(request)") }
        // The node answers within 4 s of arrival (its reply deadline); a stalled engine used to hold replies
        // for 10-15 s. The margin above the deadline is for a loaded machine, where the client's own clock
        // runs well ahead of the node's.
        if milliseconds > FuzzRig.lateAfterMilliseconds {
            failures.append("#\(index) [\(request)]: answered after \(Int(milliseconds)) ms")
        }
        return first
    }

    private func expire(_ index: Int) { waiters.removeValue(forKey: index)?.resume() }

    static let statuses: [String: Double] = [
        "success": 0, "noSuchContent": 100, "noActionableNowPlayingItem": 110, "deviceNotFound": 120, "commandFailed": 200,
    ]

    /// Records what is wrong with the reply to request `index`, if anything.
    func check(_ reply: JSONValue??, for request: HostilePayloads.Request, index: Int, seed: UInt64) {
        func fail(_ why: String) { failures.append("#\(index) [\(request)]: \(why)") }
        guard let reply else { return fail("no reply within \(FuzzRig.lostAfter)") }
        guard let reply, case let .object(members) = reply else { return fail("the reply is not a JSON object") }
        let keys = Set(members.keys)
        guard keys == ["id", "command", "status", "code", "message", "data"] else { return fail("reply keys \(keys.sorted())") }
        guard let status = members["status"]?.stringValue, let code = Self.statuses[status],
              members["code"] == .number(code)
        else { return fail("status/code \(String(describing: members["status"])) \(String(describing: members["code"]))") }
        if members["command"] != .string(request.command) { fail("command \(String(describing: members["command"]))") }
        if status != "success", (members["message"]?.stringValue ?? "").isEmpty { fail("\(status) without a message") }
        if request.mustBeRefused, status != "commandFailed" { fail("answered \(status), expected commandFailed") }
    }
}
