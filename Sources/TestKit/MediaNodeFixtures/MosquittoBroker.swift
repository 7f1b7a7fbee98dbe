import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A real mosquitto broker on a free loopback port, with a config of its own, for one test suite.
///
/// It can be killed and restarted on the same port to test reconnects. Call `stop()` when done;
/// a broker left running is killed when the object is released. Starting and stopping are awaited, never
/// waited for on a thread of the cooperative pool, so suites can run side by side.
public final class MosquittoBroker: @unchecked Sendable {
    public let port: Int
    /// The port of the MQTT-over-WebSockets listener that also serves a web page, when asked for one.
    public private(set) var webSocketPort: Int?
    public let directory: URL
    public var url: String { "mqtt://127.0.0.1:\(port)" }
    /// The page the WebSockets listener serves (its `http_dir`), as a browser opens it.
    public var webPageURL: String? { webSocketPort.map { "http://127.0.0.1:\($0)/" } }
    /// The directory that listener serves (its `http_dir`).
    public private(set) var webPageDirectory: URL?
    private let lock = NSLock()
    private var process: Process?

    /// - Parameters:
    ///   - extraConfiguration: lines appended to the generated mosquitto.conf (password files, ACLs).
    ///   - startNow: false to pick the port and write the config but start later (a broker that is down).
    ///   - webPage: a directory to serve over HTTP from a second listener that speaks MQTT over WebSockets
    ///     (as deploy/mosquitto.conf serves the dashboard); the broker's own directory if `.brokerDirectory`.
    public convenience init(extraConfiguration: [String] = [], startNow: Bool = true, webPage: WebPage? = nil) async throws {
        let webSocketPort = try webPage.map { _ in try Self.freePort() }
        try await self.init(startNow: false) { port, directory in
            var lines = [
                "listener \(port) 127.0.0.1",
                "allow_anonymous true",
                "set_tcp_nodelay true",
                "persistence false",
                // A QoS 1 subscriber to the whole retained tree must not lose messages (the default drops past 1000).
                "max_queued_messages 1000000",
            ] + extraConfiguration
            // Last, so that listener options among the extra lines still belong to the first listener.
            if let webPage, let webSocketPort {
                lines += ["listener \(webSocketPort) 127.0.0.1", "protocol websockets",
                          "http_dir \(webPage.directory(in: directory).path)"]
            }
            return lines
        }
        self.webSocketPort = webSocketPort
        webPageDirectory = webPage?.directory(in: directory)
        if let webPageDirectory { try FileManager.default.createDirectory(at: webPageDirectory, withIntermediateDirectories: true) }
        if startNow { try await start() }
    }

    /// What a WebSockets listener serves.
    public enum WebPage: Sendable {
        /// `page/` in the broker's directory, for a caller to fill before the first request.
        case brokerDirectory
        case directory(URL)

        func directory(in brokerDirectory: URL) -> URL {
            switch self {
            case .brokerDirectory: brokerDirectory.appendingPathComponent("page")
            case let .directory(url): url
            }
        }
    }

    /// A broker configured by `makeConfiguration(port, directory)` alone (listeners, security, persistence),
    /// with only the log settings added: for running an example configuration such as deploy/'s.
    public init(startNow: Bool = true, configuration makeConfiguration: (_ port: Int, _ directory: URL) throws -> [String])
        async throws
    {
        port = try Self.freePort()
        directory = try AudioFixtures.makeTemporaryDirectory("broker")
        // mosquitto started as root drops to its own user, which must still be able to write its log here.
        try FileManager.default.setAttributes([.posixPermissions: 0o777], ofItemAtPath: directory.path)
        let configuration = try makeConfiguration(port, directory) + [
            "log_dest file \(directory.appendingPathComponent("mosquitto.log").path)",
            "log_type error",
            "log_type warning",
            "log_type notice",
        ]
        try configuration.joined(separator: "\n").appending("\n")
            .write(to: configurationFile, atomically: true, encoding: .utf8)
        if startNow { try await start() }
    }

    deinit {
        // SIGKILL without waiting: Foundation reaps the child, and a deinit must not block a pool thread.
        if let process = lock.withLock({ self.process }) { ChildDaemons.ended(process.processIdentifier) }
        if let process = lock.withLock({ self.process }), process.isRunning {
            Glibc.kill(process.processIdentifier, SIGKILL)
        }
        try? FileManager.default.removeItem(at: directory)
    }

    public var configurationFile: URL { directory.appendingPathComponent("mosquitto.conf") }
    public var log: String { (try? String(contentsOf: directory.appendingPathComponent("mosquitto.log"), encoding: .utf8)) ?? "" }

    /// Waits until the log holds one of `texts` (the broker writes it when it gets to it, which on a loaded
    /// machine can be after the test's turn); whether it came within `timeout`.
    public func waitForLog(anyOf texts: [String], timeout: Duration = .seconds(10)) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            let log = self.log
            if texts.contains(where: log.contains) { return true }
            try? await Task.sleep(for: .milliseconds(50))
        }
        return false
    }

    /// Starts the broker (again) on the same port and waits until it accepts connections.
    public func start() async throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.mosquittoPath)
        process.arguments = ["-c", configurationFile.path]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        ChildDaemons.started(process.processIdentifier)
        lock.withLock { self.process = process }
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            if Self.canConnect(port: port) && webSocketPort.map(Self.canConnect(port:)) != false { return }
            if !process.isRunning {
                throw BrokerError.exited("mosquitto exited with \(process.terminationStatus); log: \(log)")
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        throw BrokerError.exited("mosquitto did not listen on port \(port) within 10 s")
    }

    /// Kills the broker with SIGKILL (no clean disconnects, as in a crash) and returns once it has exited,
    /// so that it can be started again on the same port.
    public func kill() async {
        let process = lock.withLock { () -> Process? in
            defer { self.process = nil }
            return self.process
        }
        guard let process else { return }
        ChildDaemons.ended(process.processIdentifier)
        guard process.isRunning else { return }
        Glibc.kill(process.processIdentifier, SIGKILL)
        await process.exited()
    }

    /// Freezes the broker (SIGSTOP): connections stay open and nothing is answered, as with a broker
    /// that hangs or a network that silently drops everything. `thaw` lets it go on.
    public func freeze() {
        if let process = lock.withLock({ self.process }), process.isRunning { Glibc.kill(process.processIdentifier, SIGSTOP) }
    }

    public func thaw() {
        if let process = lock.withLock({ self.process }), process.isRunning { Glibc.kill(process.processIdentifier, SIGCONT) }
    }

    /// Stops the broker for good, without waiting for it to end (a `defer` cannot await; nothing reuses
    /// the port). SIGKILL, because a child of a test runner may inherit a blocked SIGTERM; with
    /// persistence off, a graceful stop would save nothing anyway.
    public func stop() {
        let process = lock.withLock { () -> Process? in
            defer { self.process = nil }
            return self.process
        }
        if let process { ChildDaemons.ended(process.processIdentifier) }
        if let process, process.isRunning { Glibc.kill(process.processIdentifier, SIGKILL) }
    }

    public enum BrokerError: Error, CustomStringConvertible {
        case exited(String)
        case noMosquitto
        public var description: String {
            switch self {
            case let .exited(text): text
            case .noMosquitto: "mosquitto is not installed (apt-get install mosquitto)"
            }
        }
    }

    static var mosquittoPath: String {
        for candidate in ["/usr/sbin/mosquitto", "/usr/bin/mosquitto", "/usr/local/sbin/mosquitto"]
        where FileManager.default.isExecutableFile(atPath: candidate) {
            return candidate
        }
        return "/usr/sbin/mosquitto"
    }

    /// Asks the kernel for a free loopback port by binding to port 0.
    public static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw BrokerError.exited("socket() failed") }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
        }
        guard bound == 0 else { throw BrokerError.exited("bind() failed") }
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    static func canConnect(port: Int) -> Bool {
        withLoopbackSocket(port: port) { fd, address in connect(fd, address, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
    }

    /// Whether a loopback port can be bound now (nothing listens on it): for servers that must be told
    /// their ports rather than take free ones from the kernel.
    public static func isFree(port: Int) -> Bool {
        withLoopbackSocket(port: port) { fd, address in bind(fd, address, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
    }

    private static func withLoopbackSocket(port: Int, _ body: (Int32, UnsafePointer<sockaddr>) -> Bool) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body(fd, $0) }
        }
    }
}
