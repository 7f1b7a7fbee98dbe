import Foundation
import Subprocess
#if canImport(System)
import System
#else
import SystemPackage
#endif

/// Runs a command-line tool to completion and captures what it printed (standard output and error).
///
/// Async all the way down: the tool's exit and its output are awaited, not waited for on a thread, so a
/// test that runs a tool for a minute (the rig, Home Assistant's checks) leaves Swift's cooperative pool
/// (two threads here) free for the tests running beside it.
public enum ToolRun {
    /// `tool` is a path, or a name looked up on PATH. The status is the exit code, or 128 + the signal
    /// that ended the tool (as a shell reports it).
    /// `environment`: variables set for the tool on top of this process's own (a private server's address).
    public static func capture(_ tool: String, _ arguments: [String], environment: [String: String] = [:])
        async throws -> (status: Int32, output: String) {
        let executable: Executable = tool.hasPrefix("/") ? .path(FilePath(tool)) : .name(tool)
        var updates: [Environment.Key: String?] = [:]
        for (name, value) in environment {
            if let key = Environment.Key(rawValue: name) { updates[key] = value }
        }
        let result = try await run(executable, arguments: Arguments(arguments), environment: .inherit.updating(updates),
                                   output: .string(limit: 256 << 20), error: .combinedWithOutput)
        let status: Int32 = switch result.terminationStatus {
        case let .exited(code): code
        case let .signaled(signal): 128 + signal
        }
        return (status, result.standardOutput ?? "")
    }
}

extension ToolRun {
    /// `capture` for the few places that cannot await (a `static let` probe, a deinit): it blocks its
    /// thread until the tool ends, so keep it to tools that end within milliseconds.
    public static func captureBlocking(_ tool: String, _ arguments: [String]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool.hasPrefix("/") ? tool : "/usr/bin/env")
        process.arguments = tool.hasPrefix("/") ? arguments : [tool] + arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        // Read before waiting: a tool that fills the pipe would otherwise never exit.
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: output, as: UTF8.self))
    }
}
