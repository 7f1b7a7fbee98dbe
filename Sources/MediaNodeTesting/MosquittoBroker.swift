import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A real mosquitto broker on a free loopback port, with a config of its own, for one test suite.
///
/// It can be killed and restarted on the same port to test reconnects. Call `stop()` when done;
/// a broker left running is killed when the object is released.
public final class MosquittoBroker: @unchecked Sendable {
    public let port: Int
    public let directory: URL
    public var url: String { "mqtt://127.0.0.1:\(port)" }
    private let lock = NSLock()
    private var process: Process?

    /// - Parameters:
    ///   - extraConfiguration: lines appended to the generated mosquitto.conf (password files, ACLs).
    ///   - startNow: false to pick the port and write the config but start later (a broker that is down).
    public convenience init(extraConfiguration: [String] = [], startNow: Bool = true) throws {
        try self.init(startNow: startNow) { port, _ in
            [
                "listener \(port) 127.0.0.1",
                "allow_anonymous true",
                "set_tcp_nodelay true",
                "persistence false",
                // A QoS 1 subscriber to the whole retained tree must not lose messages (the default drops past 1000).
                "max_queued_messages 1000000",
            ] + extraConfiguration
        }
    }

    /// A broker configured by `makeConfiguration(port, directory)` alone (listeners, security, persistence),
    /// with only the log settings added: for running an example configuration such as deploy/'s.
    public init(startNow: Bool = true, configuration makeConfiguration: (_ port: Int, _ directory: URL) throws -> [String]) throws {
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
        if startNow { try start() }
    }

    deinit {
        kill()
        try? FileManager.default.removeItem(at: directory)
    }

    public var configurationFile: URL { directory.appendingPathComponent("mosquitto.conf") }
    public var log: String { (try? String(contentsOf: directory.appendingPathComponent("mosquitto.log"), encoding: .utf8)) ?? "" }

    /// Starts the broker (again) on the same port and waits until it accepts connections.
    public func start() throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.mosquittoPath)
        process.arguments = ["-c", configurationFile.path]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        lock.withLock { self.process = process }
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            if Self.canConnect(port: port) { return }
            if !process.isRunning {
                throw BrokerError.exited("mosquitto exited with \(process.terminationStatus); log: \(log)")
            }
            usleep(20_000)
        }
        throw BrokerError.exited("mosquitto did not listen on port \(port) within 10 s")
    }

    /// Kills the broker with SIGKILL (no clean disconnects, as in a crash) and waits for it to exit.
    public func kill() {
        let process = lock.withLock { () -> Process? in
            defer { self.process = nil }
            return self.process
        }
        guard let process, process.isRunning else { return }
        Glibc.kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    /// Stops the broker. SIGKILL, because a child of a test runner may inherit a blocked SIGTERM; with
    /// persistence off, a graceful stop would save nothing anyway.
    public func stop() { kill() }

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
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
    }
}
