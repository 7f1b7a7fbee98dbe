import Foundation
import GStreamerAudio
import Testing

/// eSpeak NG starts once per process, in the first espeak element made, with a guard that is not thread-safe.
@Suite("The first speech of a process")
struct SpeechStartTests {
    @Test("four announcements spoken at once as a process's first speech all finish, in every one of eight processes",
          .enabled(if: GStreamerClipPlayer.hasSpeech(), "eSpeak NG's GStreamer element is not installed"))
    func concurrentFirstSpeech() throws {
        // Without the fix the child died of SIGSEGV in its first two runs (two espeak elements started eSpeak NG
        // at once), and a C program making four at once crashed in 7 of 30 processes: eight in a row rarely pass.
        for run in 1...8 {
            let process = Process()
            process.executableURL = try Self.child()
            let output = Pipe()
            process.standardOutput = output
            process.standardError = FileHandle.nullDevice
            try process.run()
            let printed = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            #expect(process.terminationReason == .exit && process.terminationStatus == 0,
                    "run \(run): \(process.terminationReason == .uncaughtSignal ? "killed by signal" : "exit") \(process.terminationStatus), printed \(printed)")
            #expect(printed.split(separator: "\n") == Array(repeating: "finished", count: 4), "run \(run)")
        }
    }

    /// The `speech-child` executable, built next to the test bundle.
    static func child() throws -> URL {
        var directory = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
        while !FileManager.default.fileExists(atPath: directory.appendingPathComponent("speech-child").path), directory.path != "/" {
            directory.deleteLastPathComponent()
        }
        let child = directory.appendingPathComponent("speech-child")
        guard FileManager.default.fileExists(atPath: child.path) else { throw CocoaError(.fileNoSuchFile) }
        return child
    }
}
