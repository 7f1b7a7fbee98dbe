import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A fixture server script (Tests/Fixtures/*.py) in a child process: it prints `PORT <n>` once listening,
/// then answers one JSON command per line on its standard input with one JSON line on its standard output.
package final class FixtureServerProcess: @unchecked Sendable {
    package let port: Int
    private let process: Process
    private let input: FileHandle
    private let output: FileHandle
    private let lock = Mutex(())

    /// - Parameter python: the interpreter; Debian's own where the script needs a Debian package (selenium).
    package init(script: String, python: String = "python3") throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [python, script]
        let stdin = Pipe(), stdout = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        try process.run()
        self.process = process
        self.input = stdin.fileHandleForWriting
        self.output = stdout.fileHandleForReading
        let first = Self.readLine(output)
        guard first.hasPrefix("PORT "), let port = Int(first.dropFirst(5)) else {
            kill(process.processIdentifier, SIGKILL)
            throw AudioFixtureError.toolFailed(command: script, status: -1, output: first)
        }
        self.port = port
    }

    deinit { stop() }

    /// Sends one command and returns the server's answer (empty once it has gone).
    package func send(_ command: [String: Any]) -> [String: Any] {
        lock.withLock { _ in
            guard process.isRunning, let data = try? JSONSerialization.data(withJSONObject: command) else { return [:] }
            input.write(data + Data("\n".utf8))
            let line = Self.readLine(output)
            return (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any] ?? [:]
        }
    }

    /// Waits up to `seconds` for the script to end by itself; whether it did.
    package func waitForExit(seconds: Double) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while process.isRunning && Date() < deadline { usleep(20_000) }
        return !process.isRunning
    }

    /// SIGKILL: children of the test process inherit a blocked SIGTERM.
    package func stop() {
        guard process.isRunning else { return }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    private static func readLine(_ handle: FileHandle) -> String {
        var bytes: [UInt8] = []
        while true {
            guard let byte = try? handle.read(upToCount: 1), let first = byte.first else { break }
            if first == UInt8(ascii: "\n") { break }
            bytes.append(first)
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// A script in this package's Tests/Fixtures, or the path in `environmentKey` when it is set.
    package static func scriptPath(_ name: String, environmentKey: String) -> String {
        if let path = ProcessInfo.processInfo.environment[environmentKey] { return path }
        return URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Tests/Fixtures/\(name)").path
    }
}
