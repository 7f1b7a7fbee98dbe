import Foundation
import MediaJSON
import MediaNodeTesting
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// SIGTERM on the real daemon while the machine is busy and the network does not answer: the shutdown is
/// timed step by step in the log, waits on the network only within the goodbye's limits, and is over in 3 s.
@Suite("The daemon's shutdown is bounded", .serialized)
final class ShutdownTests {
    let scratch: URL

    init() throws {
        scratch = try AudioFixtures.makeTemporaryDirectory("shutdown")
    }

    deinit {
        try? FileManager.default.removeItem(at: scratch)
    }

    /// The steps the daemon's log names, in the order they stop (the node's services in reverse).
    static let steps = [
        "Commands", "HomeAssistant", "Downloads", "Loudness", "Catalog", "ContentTree", "Announcements", "NowPlaying",
        "Resume", "Playback", "ListeningHistory", "Metrics", "Transport",
    ]

    @Test("beside a busy loop on every core, a node that plays, measures loudness and refreshes a catalog from a server that does not answer, on a broker that has hung, stops within 3 s of SIGTERM and logs each step's time")
    func loadedAndUnanswered() async throws {
        let library = scratch.appendingPathComponent("music")
        // Untagged: the loudness analyser measures them in its child when the SIGTERM comes.
        for track in AudioFixtures.album(count: 4, seconds: 20, album: "Busy", artist: "Shutdown Band") {
            _ = try await AudioFixtures.writeTone(track, in: library)
        }
        let silent = try SilentListener()
        let broker = try await MosquittoBroker()
        defer { broker.stop() }
        let client = try TestMQTTClient(brokerURL: broker.url)
        try await client.connect()
        try await client.subscribeAndSettle("medianode/down/#")
        let node = try NodeProcess(arguments: [
            "--broker", broker.url, "--node-id", "down", "--audio-sink", "fake", "--library", library.path,
            "--catalog", "http://127.0.0.1:\(silent.port)/feed.xml", "--metrics-interval", "1",
            "--database", scratch.appendingPathComponent("busy.sqlite").path,
        ])
        _ = try await client.first(timeout: .seconds(60)) { message in
            message.topic == "medianode/down/content/tree/0/1"
                && (try? JSONValue(parsing: message.payload))?["children"]?[0] != nil
        }
        try await client.publish("medianode/down/cmd/playItem", #"{"id":"play","indexPath":[0,1,0,0]}"#)
        let play = try await client.first(timeout: .seconds(20)) { $0.topic == "medianode/down/result" }
        #expect(try JSONValue(parsing: play.payload)["status"] == "success")
        let hog = try CPUHog()
        defer { hog.stop() }
        try await Task.sleep(for: .milliseconds(500))
        broker.freeze()
        let asked = ContinuousClock.now
        node.signal(SIGTERM)
        let status = await node.waitForExit(timeout: .seconds(20))
        let took = ContinuousClock.now - asked
        hog.stop()
        broker.thaw()
        #expect(status == 0, "log: \(node.log)")
        #expect(took < .seconds(3), "the shutdown took \(took); log: \(node.log)")
        let log = node.log
        for step in Self.steps {
            #expect(log.contains("shutdown: \(step) stopped in "), "no time for \(step): \(log)")
        }
        #expect(log.contains("shutdown: done in "), "\(log)")
        // The figures, for the record: each step's time beside the hog.
        print("shutdown in \(took) beside \(ProcessInfo.processInfo.activeProcessorCount) busy loops:\n"
            + log.split(separator: "\n").filter { $0.contains("shutdown:") || $0.contains("MQTTTransport") }.joined(separator: "\n"))
        // The hung broker, once it goes on, has the node offline: by its goodbye or by its will.
        let late = try TestMQTTClient(brokerURL: broker.url)
        try await late.connect(timeout: .seconds(20))
        try await late.subscribeAndSettle("medianode/down/status")
        let retained = try await late.first(timeout: .seconds(20)) { $0.topic == "medianode/down/status" }
        #expect(String(decoding: retained.payload, as: UTF8.self) == "offline")
        await late.disconnect()
        await client.disconnect()
    }

    @Test("a node still connecting to a broker that does not answer the TCP handshake stops within 3 s of SIGTERM")
    func connectingToUnansweringBroker() async throws {
        // Its queue fills with handshakes of its own before the node (seconds later) tries.
        let unanswering = try UnansweringListener()
        let node = try NodeProcess(arguments: [
            "--broker", "mqtt://127.0.0.1:\(unanswering.port)", "--node-id", "stuck", "--audio-sink", "fake",
            "--database", scratch.appendingPathComponent("stuck.sqlite").path,
        ])
        #expect(await node.waitForLog("starting node"), "\(node.log)")
        // Started: GStreamer and the catalog are up, and the connect has been waiting a while.
        try await Task.sleep(for: .seconds(2))
        let asked = ContinuousClock.now
        node.signal(SIGTERM)
        let status = await node.waitForExit(timeout: .seconds(20))
        let took = ContinuousClock.now - asked
        #expect(status == 0, "log: \(node.log)")
        #expect(took < .seconds(3), "the shutdown took \(took); log: \(node.log)")
        #expect(node.log.contains("shutdown: Transport stopped in "), "\(node.log)")
        if status == nil { node.signal(SIGKILL) }
    }
}

/// A busy loop on every core, in processes of their own, until `stop`.
final class CPUHog: @unchecked Sendable {
    private let processes: [Process]

    init() throws {
        processes = try (0..<ProcessInfo.processInfo.activeProcessorCount).map { _ in
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            process.arguments = ["-c", "while :; do :; done"]
            try process.run()
            return process
        }
    }

    func stop() {
        for process in processes where process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }

    deinit { stop() }
}

/// A TCP port that takes connections and never says a word: an HTTP server that has hung.
final class SilentListener: @unchecked Sendable {
    let port: Int
    private let socket: Int32
    private var accepted: [Int32] = []
    private let lock = NSLock()

    init() throws {
        (socket, port) = try Self.listen(backlog: 64)
        let socket = self.socket
        Thread.detachNewThread { [weak self] in
            while true {
                let connection = accept(socket, nil, nil)
                guard connection >= 0, let self else { return }
                self.lock.withLock { self.accepted.append(connection) }
            }
        }
    }

    deinit {
        shutdown(socket, Int32(SHUT_RDWR))
        close(socket)
        lock.withLock { accepted.forEach { close($0) } }
    }

    /// A listening loopback socket on a free port.
    static func listen(backlog: Int32) throws -> (socket: Int32, port: Int) {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                bind(socket, address, length) == 0 && Glibc.listen(socket, backlog) == 0
                    && getsockname(socket, address, &length) == 0
            }
        }
        guard socket >= 0, bound else { throw ListenerError() }
        return (socket, Int(UInt16(bigEndian: address.sin_port)))
    }

    struct ListenerError: Error {}
}

/// A TCP port whose queue of pending connections is full and never accepted, so a new connection's
/// handshake goes unanswered, as with a host that drops everything.
final class UnansweringListener: @unchecked Sendable {
    let port: Int
    private let socket: Int32
    private var fillers: [Int32] = []

    init() throws {
        (socket, port) = try SilentListener.listen(backlog: 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        for _ in 0..<4 {
            let filler = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            _ = fcntl(filler, F_SETFL, fcntl(filler, F_GETFL) | O_NONBLOCK)
            _ = withUnsafePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(filler, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            fillers.append(filler)
        }
    }

    deinit {
        fillers.forEach { close($0) }
        close(socket)
    }
}
