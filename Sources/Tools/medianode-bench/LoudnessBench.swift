import ArgumentParser
import Foundation
import MediaNode
import MediaNodeFixtures

/// What loudness levelling costs: measuring a library, beside GStreamer's own ReplayGain analysis of the
/// same files; and the node's CPU while it plays with levelling on, beside off.
struct LoudnessBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "loudness",
        abstract: "Loudness measurement rate and CPU beside gst-launch rganalysis; playing CPU with levelling on and off.")

    @Option(help: "Files in the generated library (the catalog-scan bench's folder: 1 s Ogg tones).") var files = 5_000
    @Option(help: "Where the library is generated (kept between runs).") var folder = "/tmp/medianode-bench-scan"
    @Option(help: "Files per process, for both (the node's analyser uses 16).") var batch = 16
    @Option(help: "Seconds of playing per CPU sample.") var seconds = 20
    @Option(help: "Playing rounds of each kind, interleaved.") var rounds = 3
    @Option(help: "Which part: all, measure or playing.") var only = "all"

    func run() async throws {
        quietLogs()
        if only != "playing" { try await measure() }
        if only != "measure" { try await playing() }
    }

    // MARK: - Measuring a library

    func measure() async throws {
        let scan = try CatalogScanBench.parse(["--files", "\(files)", "--folder", folder])
        let music = URL(fileURLWithPath: folder).appendingPathComponent("\(files)")
        try await scan.generate(into: music)
        let paths = try audioFiles(in: music)
        let binary = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
            .appendingPathComponent("medianode").path
        let gst = which("gst-launch-1.0")
        for turn in 0 ..< 2 {
            // Alternate who goes first, so neither always finds the page cache the other warmed.
            let nodeFirst = turn == 0
            for kind in nodeFirst ? ["node", "gst"] : ["gst", "node"] {
                if kind == "node" {
                    let (wall, cpu, measured) = try runBatches(paths, arguments: { ["catalog", "measure"] + $0 }, executable: binary)
                    report("medianode catalog measure (EBU R128, libebur128)", paths.count, wall, cpu, measured)
                } else if let gst {
                    let (wall, cpu, _) = try runBatches(paths, arguments: rganalysis, executable: gst)
                    report("gst-launch-1.0 ... rganalysis (ReplayGain)", paths.count, wall, cpu, nil)
                }
            }
        }
    }

    /// One pipeline per file in one gst-launch process per batch: decode, convert, resample, analyse.
    func rganalysis(_ paths: [String]) -> [String] {
        paths.flatMap { path in
            ["filesrc", "location=\(path)", "!", "decodebin", "!", "audioconvert", "!", "audioresample", "!",
             "rganalysis", "!", "fakesink", "sync=false"]
        }
    }

    /// Runs `executable` once per batch, one after another as the analyser does, at the lowest priority:
    /// (wall seconds, CPU seconds of the children, files measured).
    func runBatches(_ paths: [String], arguments: ([String]) -> [String], executable: String) throws -> (Double, Double, Int) {
        let before = childCPU()
        let started = ContinuousClock.now
        var measured = 0
        for start in stride(from: 0, to: paths.count, by: batch) {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/nice")
            process.arguments = ["-n", "19", executable] + arguments(Array(paths[start ..< min(paths.count, start + batch)]))
            let output = Pipe()
            process.standardOutput = output
            process.standardError = FileHandle.nullDevice
            try process.run()
            let data = output.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            measured += String(decoding: data, as: UTF8.self).split(separator: "\n").filter { $0.contains("\"loudness\"") }.count
        }
        return ((ContinuousClock.now - started) / .seconds(1), childCPU() - before, measured)
    }

    func report(_ label: String, _ count: Int, _ wall: Double, _ cpu: Double, _ measured: Int?) {
        let what = measured.map { ", \($0) with a loudness" } ?? ""
        print(String(format: "%@: %d files in %.1f s, %.0f files/s, CPU %.1f s (%.1f ms per file)%@",
                     label, count, wall, Double(count) / wall, cpu, cpu * 1000 / Double(count), what))
    }

    func audioFiles(in folder: URL) throws -> [String] {
        guard let walker = FileManager.default.enumerator(atPath: folder.path) else { return [] }
        return walker.compactMap { $0 as? String }.filter { $0.hasSuffix(".ogg") }.sorted()
            .map { folder.appendingPathComponent($0).path }
    }

    /// User + system CPU seconds of all waited-for children so far.
    func childCPU() -> Double {
        var usage = rusage()
        getrusage(__rusage_who_t(RUSAGE_CHILDREN.rawValue), &usage)
        return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec)
            + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
    }
}

// MARK: - The node's CPU while playing

extension LoudnessBench {
    func playing() async throws {
        let broker = try await MosquittoBroker()
        defer { broker.stop() }
        let scratch = try AudioFixtures.makeTemporaryDirectory("loudness-bench")
        defer { try? FileManager.default.removeItem(at: scratch) }
        let music = scratch.appendingPathComponent("music")
        // Tagged 6 dB down, so with levelling on the gain stage scales every sample.
        var tone = ToneTrack(fileName: "01 tone.ogg", frequency: 440, seconds: Double(seconds + 30), title: "Tone")
        tone.extraTags = ["replaygain-track-gain=(double)-6"]
        _ = try await AudioFixtures.writeTone(tone, in: music)
        var samples: [String: [Double]] = ["on": [], "off": []]
        for round in 1 ... max(1, rounds) {
            for target in round % 2 == 0 ? ["-18", "off"] : ["off", "-18"] {
                let cpu = try await playingCPU(target: target, music: music, scratch: scratch, broker: broker)
                samples[target == "off" ? "off" : "on", default: []].append(cpu)
                print(String(format: "round %d: --loudness-target %@: %.3f CPU s per playing second", round, target, cpu))
            }
        }
        let median = { (values: [Double]) in values.sorted()[values.count / 2] }
        let on = median(samples["on"]!), off = median(samples["off"]!)
        print(String(format: "median: levelling on %.3f, off %.3f CPU s per second: %.2fx (target: within 1.10x)",
                     on, off, on / off))
    }

    /// The node's CPU per second of playing, after a few seconds' warm-up.
    func playingCPU(target: String, music: URL, scratch: URL, broker: MosquittoBroker) async throws -> Double {
        // A node id of its own each time: the broker keeps the last one's retained tree.
        let nodeID = "loudness-\(UUID().uuidString.prefix(8))"
        let prefix = "medianode/\(nodeID)"
        let observer = try MemoryObserver(brokerURL: broker.url, prefix: prefix)
        try await observer.waitUntil("the observer's connection") { observer.client.isConnected }
        let node = Process()
        node.executableURL = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
            .appendingPathComponent("medianode")
        let database = scratch.appendingPathComponent("catalog-\(UUID().uuidString).sqlite").path
        node.arguments = ["--broker", broker.url, "--node-id", nodeID, "--library", music.path, "--database", database,
                          "--audio-sink", "fake", "--loudness-target=\(target)", "--log-level", "warning"]
        try node.run()
        defer {
            if node.isRunning { kill(node.processIdentifier, SIGKILL) }
            node.waitUntilExit()
        }
        try await observer.waitUntil("the node's retained state") { observer.retainedStatePublished(page: "content/tree/0/1") }
        try observer.client.publish(topic: TopicLayout(prefix: prefix).command("playItem"), payload: Array(#"{"indexPath":[0,1,0,0]}"#.utf8), qos: 1)
        try await Task.sleep(for: .seconds(3))
        let before = processCPU(node.processIdentifier)
        try await Task.sleep(for: .seconds(seconds))
        let after = processCPU(node.processIdentifier)
        await observer.client.shutdown()
        return (after - before) / Double(seconds)
    }

    /// utime + stime of a process, seconds, from /proc/PID/stat.
    func processCPU(_ pid: Int32) -> Double {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = text.lastIndex(of: ")")
        else { return 0 }
        let fields = text[text.index(after: close)...].split(separator: " ")
        // After the command: state is field 3, so utime (14) and stime (15) are at 11 and 12 here.
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return 0 }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }
}
