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
    package init(script: String, python: String = "python3") async throws {
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
        let output = self.output
        let first = try await onOwnThread { Self.readLine(output) }
        guard first.hasPrefix("PORT "), let port = Int(first.dropFirst(5)) else {
            kill(process.processIdentifier, SIGKILL)
            throw AudioFixtureError.toolFailed(command: script, status: -1, output: first)
        }
        self.port = port
    }

    deinit { stop() }

    /// Sends one command and returns the server's answer (empty once it has gone). The answer is awaited on
    /// a thread of its own: a command such as "load the page and wait" takes seconds.
    package func send(_ command: [String: Any]) async -> [String: Any] {
        guard let data = try? JSONSerialization.data(withJSONObject: command) else { return [:] }
        let line = (try? await onOwnThread { [self] in exchange(data) }) ?? ""
        return (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any] ?? [:]
    }

    /// `send` for a thread that may block (a deinit's own thread).
    package func sendBlocking(_ command: [String: Any]) {
        guard let data = try? JSONSerialization.data(withJSONObject: command) else { return }
        _ = exchange(data)
    }

    private func exchange(_ request: Data) -> String {
        lock.withLock { _ -> String in
            guard process.isRunning else { return "" }
            input.write(request + Data("\n".utf8))
            return Self.readLine(output)
        }
    }

    /// Waits up to `seconds` for the script to end by itself, blocking its thread (for a thread of its own);
    /// whether it did.
    package func waitForExitBlocking(seconds: Double) -> Bool {
        let deadline = ContinuousClock.now + .seconds(seconds)
        while process.isRunning && ContinuousClock.now < deadline { usleep(20_000) }
        return !process.isRunning
    }

    /// SIGKILL (children of the test process inherit a blocked SIGTERM), without waiting: Foundation reaps
    /// the child, and a `defer` cannot await.
    package func stop() {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
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
