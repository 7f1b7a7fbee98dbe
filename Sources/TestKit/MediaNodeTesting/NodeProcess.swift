import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The real `medianode` executable run as a child process, for what only a process can show:
/// its last will after `kill -9`, its clean shutdown on SIGTERM, and what it logs.
public final class NodeProcess: @unchecked Sendable {
    public let process = Process()
    public let logFile: URL

    /// Starts `medianode` with `arguments`; its standard error goes to `logFile`.
    /// - Parameters:
    ///   - fileSizeLimit: the largest file it may write, in bytes (`ulimit -f`), to act out a full disk.
    ///   - environment: variables set for it on top of this process's (`DBUS_SESSION_BUS_ADDRESS`, `PULSE_SERVER`).
    public init(arguments: [String], fileSizeLimit: Int? = nil, environment: [String: String] = [:]) throws {
        logFile = FileManager.default.temporaryDirectory.appendingPathComponent("medianode-\(UUID().uuidString).log")
        FileManager.default.createFile(atPath: logFile.path, contents: nil)
        let log = try FileHandle(forWritingTo: logFile)
        if let fileSizeLimit {
            // The shell counts in 512-byte blocks and passes the limit on through exec.
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            process.arguments = ["-c", "ulimit -f \(max(1, fileSizeLimit / 512)) && exec \"$0\" \"$@\"", Self.binaryPath]
                + arguments
        } else {
            process.executableURL = URL(fileURLWithPath: Self.binaryPath)
            process.arguments = arguments
        }
        process.standardOutput = log
        process.standardError = log
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, given in given }
        }
        try process.run()
    }

    deinit {
        // Without waiting: Foundation reaps the child, and a deinit must not block a pool thread.
        if process.isRunning { Glibc.kill(process.processIdentifier, SIGKILL) }
        try? FileManager.default.removeItem(at: logFile)
    }

    public var log: String { (try? String(contentsOf: logFile, encoding: .utf8)) ?? "" }

    /// Resident memory now and at its peak (VmRSS, VmHWM), in KiB, while the process runs.
    public var memory: (residentKiB: Int, peakKiB: Int)? {
        guard let status = try? String(contentsOfFile: "/proc/\(process.processIdentifier)/status", encoding: .utf8)
        else { return nil }
        func field(_ name: String) -> Int? {
            status.split(separator: "\n").first { $0.hasPrefix(name + ":") }
                .flatMap { Int($0.dropFirst(name.count + 1).trimmingCharacters(in: .whitespaces).split(separator: " ")[0]) }
        }
        guard let resident = field("VmRSS"), let peak = field("VmHWM") else { return nil }
        return (resident, peak)
    }

    public func signal(_ number: Int32) { Glibc.kill(process.processIdentifier, number) }

    /// Waits for the process to exit and returns its status, or nil if it is still running after `timeout`.
    public func waitForExit(timeout: Duration = .seconds(10)) async -> Int32? {
        let deadline = ContinuousClock.now + timeout
        while process.isRunning {
            if ContinuousClock.now > deadline { return nil }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return process.terminationStatus
    }

    /// Waits until the log contains `text`. The default leaves room for a process start on a loaded
    /// machine, where GStreamer may be rebuilding its plugin registry; a passing wait returns at once.
    public func waitForLog(_ text: String, timeout: Duration = .seconds(30)) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if log.contains(text) { return true }
            try? await Task.sleep(for: .milliseconds(50))
        }
        return false
    }

    /// The built `medianode` beside the test bundle, or `MEDIANODE_BINARY`.
    public static var binaryPath: String {
        if let path = ProcessInfo.processInfo.environment["MEDIANODE_BINARY"] { return path }
        let runner = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        var directory = runner.deletingLastPathComponent()
        // The runner may sit inside an .xctest bundle directory.
        while directory.path != "/" {
            let candidate = directory.appendingPathComponent("medianode")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate.path }
            directory = directory.deletingLastPathComponent()
        }
        return ".build/debug/medianode"
    }
}
