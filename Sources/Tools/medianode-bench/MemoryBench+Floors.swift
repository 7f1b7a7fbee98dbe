import ArgumentParser
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Logging
import MQTTTransport
import MediaNodeFixtures

// MARK: - The floors: what the node's parts cost alone, each a process of its own

extension MemoryBench {
    /// Starts each floor, lets it settle and reads it: a bare C MQTT client, GStreamer alone playing the same
    /// file into the same kind of sink, and this toolchain's bare process (a connected client, idle, then
    /// also playing through a bare playbin).
    func measureFloors(broker: MosquittoBroker, file: URL, scratch: URL) async throws -> [(String, ProcessMemory)] {
        let bench = URL(fileURLWithPath: CommandLine.arguments[0]).path
        let gstSink = sink.hasPrefix("wav:")
            ? "volume ! audioconvert ! wavenc ! filesink location=\(scratch.appendingPathComponent("floor.wav").path)"
            : "volume ! fakesink sync=true"
        let floors: [(String, String, [String], Duration)] = [
            ("floor: mosquitto_sub, connected", "/usr/bin/mosquitto_sub",
             ["-h", "127.0.0.1", "-p", "\(broker.port)", "-t", "floor/#"], .seconds(2)),
            ("floor: gst-launch playbin, playing 3 s", "/usr/bin/gst-launch-1.0",
             ["-q", "playbin", "uri=\(file.absoluteString)", "audio-sink=\(gstSink)", "audio-filter=scaletempo"],
             .seconds(3)),
            ("floor: Swift client, connected, idle", bench, ["memory-floor", "--broker", broker.url], .seconds(2)),
            ("floor: Swift client + bare playbin, 3 s", bench,
             ["memory-floor", "--broker", broker.url, "--play", file.absoluteString], .seconds(3)),
        ]
        var rows: [(String, ProcessMemory)] = []
        for (label, executable, arguments, settle) in floors {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: executable)
            process.arguments = arguments
            try process.run()
            try await Task.sleep(for: settle)
            let memory = ProcessMemory(pid: process.processIdentifier)
            // Not SIGTERM: a child of this process may not act on it (mosquitto_sub did not).
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            guard let memory else { throw BenchError("\(label) exited before it was read") }
            rows.append((label, memory))
        }
        return rows
    }
}

/// The Swift floor, run as a process of its own: the same toolchain and libraries as the node, a
/// connected libmosquitto client and nothing else; with `--play`, also a bare playbin playing into the fake
/// sink. Runs until terminated.
struct MemoryFloor: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "memory-floor", abstract: "The bare process the memory benchmark compares the node with.",
        shouldDisplay: false)

    @Option var broker: String
    @Option(help: "A URI to play through a bare playbin.") var play: String?

    func run() async throws {
        var logger = Logger(label: "medianode-bench.memory-floor")
        logger.logLevel = .warning
        let client = try MQTTClient(
            configuration: MQTTConfiguration(broker: try BrokerURL(parsing: broker), clientID: "memory-floor"), logger: logger)
        client.start()
        try client.subscribe("floor/#", qos: 1)
        var playbin: BarePlaybin?
        if let play {
            playbin = try BarePlaybin(uri: play, output: .fake)
            playbin?.play()
        }
        while true {
            try await Task.sleep(for: .seconds(60))
            _ = playbin
        }
    }
}
