import ArgumentParser
import Foundation
import GStreamerAudio
import MediaJSON

/// `medianode catalog measure FILE...`: the EBU R128 loudness of each file, one JSON line each, at the
/// lowest CPU priority. The node's loudness analyser runs it as a child process, so decoding never takes
/// a core from playback and a decoder that crashes on a damaged file takes only this process with it.
struct CatalogMeasure: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "measure",
        abstract: "Print the EBU R128 integrated loudness and sample peak of audio files, one JSON line each.")

    @Argument(help: "Audio files.")
    var files: [String]

    func run() throws {
        // Before GStreamer starts a thread: threads inherit the value, and it applies to each on Linux.
        _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 19)
        for path in files {
            var line: [String: JSONValue] = ["path": .string(path)]
            switch LoudnessMeter.measure(path: path) {
            case let .measured(loudness, peak):
                line["loudness"] = .number((loudness * 100).rounded() / 100)
                line["peak"] = .number((peak * 10_000).rounded() / 10_000)
            case .silent:
                line["silent"] = true
            case let .refused(reason):
                line["refused"] = .string(reason)
            }
            // Written at once, line by line: the node reads what a child that died mid-batch got through.
            FileHandle.standardOutput.write(Data(JSONValue.object(line).jsonBytes + [0x0A]))
        }
    }
}
