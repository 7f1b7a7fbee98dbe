import Foundation
import MediaJSON
import MediaNodeTesting
import Testing

/// The `medianode` daemon as a car runs it, `--audio-sink pulse` on the car's sound server (here a private one),
/// with a broker and a client that sees all its topics, and the speakers recorded.
struct SoundServerRig {
    let server: PrivateSoundServer
    let broker: MosquittoBroker
    let node: NodeProcess
    let client: TestMQTTClient
    let directory: URL
    let library: URL
    static let nodeID = "car1"
    let prefix = "medianode/\(SoundServerRig.nodeID)"

    /// A node over a library made by `makeLibrary` (in the folder it is given), playing through `server`.
    static func start(server: PrivateSoundServer, sink: String = "pulse", arguments: [String] = [],
                      makeLibrary: (URL) async throws -> Void) async throws -> SoundServerRig {
        let directory = try AudioFixtures.makeTemporaryDirectory("sound-server-node")
        let library = directory.appendingPathComponent("library")
        try FileManager.default.createDirectory(at: library, withIntermediateDirectories: true)
        try await makeLibrary(library)
        let broker = try await MosquittoBroker()
        let client = try TestMQTTClient(brokerURL: broker.url)
        try await client.connect()
        try await client.subscribeAndSettle("medianode/\(nodeID)/#")
        let node = try NodeProcess(
            arguments: ["--broker", broker.url, "--node-id", nodeID, "--library", library.path,
                        "--database", directory.appendingPathComponent("catalog.sqlite").path, "--audio-sink", sink,
                        "--resume", "off", "--loudness-target", "off", "--metrics-interval", "0"] + arguments,
            environment: server.environment)
        let rig = SoundServerRig(server: server, broker: broker, node: node, client: client, directory: directory, library: library)
        _ = try await client.first(timeout: .seconds(60)) {
            $0.topic == "\(rig.prefix)/status" && String(decoding: $0.payload, as: UTF8.self) == "online"
        }
        _ = try await rig.waitForEvent("the library's first scan", timeout: 60) { $0["type"] == "catalogUpdated" }
        return rig
    }

    /// Kills the node and the broker at once (a `defer` cannot await); the client goes with the test.
    func stop() {
        node.signal(SIGKILL)
        broker.stop()
        try? FileManager.default.removeItem(at: directory)
    }

    func identifier(of file: URL) -> String {
        LibraryCatalog.trackIdentifier(path: file.path, libraries: [library.path])
    }

    // MARK: - Commands and what the node shows

    /// Sends `command` with a fresh id and the given JSON fields; returns the reply and when it arrived.
    @discardableResult
    func send(_ command: String, _ fields: String = "") async throws -> (reply: JSONValue, at: Date) {
        let id = "\(command)-\(UUID().uuidString.prefix(8))"
        let payload = fields.isEmpty ? #"{"id":"\#(id)"}"# : #"{"id":"\#(id)",\#(fields)}"#
        try await client.publish("\(prefix)/cmd/\(command)", payload)
        let result = "\(prefix)/result"
        let message = try await client.first(timeout: .seconds(15)) {
            $0.topic == result && (try? JSONValue(parsing: $0.payload))?["id"] == .string(id)
        }
        return (try JSONValue(parsing: message.payload), Date())
    }

    func status(_ command: String, _ fields: String = "") async throws -> String {
        try await send(command, fields).reply["status"]?.stringValue ?? "no status"
    }

    var nowPlaying: JSONValue? {
        get async {
            guard let message = await client.latest(on: "\(prefix)/nowplaying") else { return nil }
            return try? JSONValue(parsing: message.payload)
        }
    }

    /// Waits until now playing shows `state`; returns it and when it was first seen (polled every 5 ms).
    @discardableResult
    func waitForState(_ state: String, timeout: Double = 10) async throws -> (nowPlaying: JSONValue, at: Date) {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if let shown = await nowPlaying, shown["state"]?.stringValue == state { return (shown, Date()) }
            try await Task.sleep(for: .milliseconds(5))
        }
        throw WaitTimeout("now playing \(state); it shows \(await nowPlaying?.jsonString ?? "nothing")")
    }

    /// Every event so far.
    func events() async -> [JSONValue] {
        await client.messages(on: "\(prefix)/events").compactMap { try? JSONValue(parsing: $0.payload) }
    }

    /// Waits for an event (already received or arriving) that satisfies `predicate`.
    @discardableResult
    func waitForEvent(_ what: String, timeout: Double = 10, _ predicate: @escaping @Sendable (JSONValue) -> Bool)
        async throws -> JSONValue {
        let topic = "\(prefix)/events"
        let message = try await client.first(timeout: .milliseconds(Int(timeout * 1000))) {
            $0.topic == topic && (try? JSONValue(parsing: $0.payload)).map(predicate) == true
        }
        return try JSONValue(parsing: message.payload)
    }

    /// Where now playing says the audio is at `time` (seconds since the epoch).
    func position(of nowPlaying: JSONValue, at time: Double) -> Double? {
        guard let elapsed = nowPlaying["elapsedPlaybackTime"]?.numberValue,
              let timestamp = nowPlaying["timestamp"]?.numberValue else { return nil }
        return elapsed + (time - timestamp) * (nowPlaying["playbackRate"]?.numberValue ?? 0)
    }
}
