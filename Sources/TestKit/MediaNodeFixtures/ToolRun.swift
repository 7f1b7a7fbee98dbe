import Foundation

/// Runs a command-line tool to completion and captures what it printed (standard output and error).
public enum ToolRun {
    /// `tool` is a path, or a name looked up on PATH.
    public static func capture(_ tool: String, _ arguments: [String]) throws -> (status: Int32, output: String) {
        let process = Process()
        if tool.hasPrefix("/") {
            process.executableURL = URL(fileURLWithPath: tool)
            process.arguments = arguments
        } else {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = [tool] + arguments
        }
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
