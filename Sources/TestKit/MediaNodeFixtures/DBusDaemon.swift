import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A real `dbus-daemon` with a session-bus configuration of its own, listening on a socket in a folder of
/// its own, for one test: nothing of the machine's buses is touched.
///
/// It can be killed and started again on the same socket, to act out a bus that crashes or restarts.
/// Call `stop()` when done; a daemon left running is killed when the object is released.
public final class DBusDaemon: @unchecked Sendable {
    public let directory: URL
    public var socketPath: String { directory.appendingPathComponent("bus").path }
    /// The D-Bus address clients connect to (`DBUS_SESSION_BUS_ADDRESS`, `gdbus --address`).
    public var address: String { "unix:path=\(socketPath)" }
    private let lock = NSLock()
    private var process: Process?

    public init(startNow: Bool = true) async throws {
        directory = try AudioFixtures.makeTemporaryDirectory("dbus")
        // A session bus that lets anyone own any name and watch everything, as a developer's session does.
        let configuration = """
            <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
             "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
            <busconfig>
              <type>session</type>
              <listen>unix:path=\(directory.appendingPathComponent("bus").path)</listen>
              <auth>EXTERNAL</auth>
              <policy context="default">
                <allow send_destination="*" eavesdrop="true"/>
                <allow eavesdrop="true"/>
                <allow own="*"/>
              </policy>
            </busconfig>
            """
        try configuration.write(to: configurationFile, atomically: true, encoding: .utf8)
        if startNow { try await start() }
    }

    deinit {
        if let process = lock.withLock({ self.process }) { ChildDaemons.ended(process.processIdentifier) }
        if let process = lock.withLock({ self.process }), process.isRunning {
            Glibc.kill(process.processIdentifier, SIGKILL)
        }
        try? FileManager.default.removeItem(at: directory)
    }

    public var configurationFile: URL { directory.appendingPathComponent("bus.conf") }
    public var log: String { (try? String(contentsOf: directory.appendingPathComponent("dbus.log"), encoding: .utf8)) ?? "" }

    /// Starts the daemon (again) on the same socket and returns once it accepts connections.
    public func start() async throws {
        try? FileManager.default.removeItem(atPath: socketPath)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/dbus-daemon")
        process.arguments = ["--config-file=\(configurationFile.path)", "--nofork", "--nopidfile"]
        FileManager.default.createFile(atPath: directory.appendingPathComponent("dbus.log").path, contents: nil)
        let log = try FileHandle(forWritingTo: directory.appendingPathComponent("dbus.log"))
        log.seekToEndOfFile()
        process.standardOutput = log
        process.standardError = log
        try process.run()
        ChildDaemons.started(process.processIdentifier)
        lock.withLock { self.process = process }
        let deadline = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < deadline {
            if Self.canConnect(toSocket: socketPath) { return }
            if !process.isRunning { throw DaemonError("dbus-daemon exited with \(process.terminationStatus): \(self.log)") }
            try await Task.sleep(for: .milliseconds(10))
        }
        throw DaemonError("dbus-daemon did not listen on \(socketPath) within 10 s")
    }

    /// Kills the daemon with SIGKILL (a crash: clients see their connection drop) and returns once it has exited.
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

    /// Stops the daemon for good without waiting (a `defer` cannot await).
    public func stop() {
        let process = lock.withLock { () -> Process? in
            defer { self.process = nil }
            return self.process
        }
        if let process { ChildDaemons.ended(process.processIdentifier) }
        if let process, process.isRunning { Glibc.kill(process.processIdentifier, SIGKILL) }
    }

    public struct DaemonError: Error, CustomStringConvertible {
        public let description: String
        init(_ description: String) { self.description = description }
    }

    static func canConnect(toSocket path: String) -> Bool {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8.prefix(MemoryLayout.size(ofValue: address.sun_path) - 1))
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            buffer.copyBytes(from: bytes)
            buffer[bytes.count] = 0
        }
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) == 0
            }
        }
    }
}
