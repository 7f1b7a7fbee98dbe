import ArgumentParser
import Foundation
import GRDB
#if canImport(Glibc)
import Glibc
import MediaNode
#endif
import MediaNodeFixtures
import Playback

/// What a node writes to its storage (a car's flash pays for every byte): the release daemon as a child
/// process, its `write_bytes` from `/proc/PID/io` (bytes the process sent towards the disk, counted as it
/// dirties the page cache) over 1,000 mixed commands sent one after another's reply, over commands sent one
/// a second, and over minutes of steady playback; beside the same runs of another build (`--compare`, today's
/// code) and a bare SQLite file with the catalog's settings updating one row at the same cadence.
struct WriteBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "writes",
        abstract: "Bytes a node writes per command and per minute of playback (/proc/PID/io), beside another build.")

    @Option(help: "Mixed commands sent in a row, each once the one before is answered.") var commands = 1_000
    @Option(help: "Commands sent one a second (the fleet rig's pace).") var paced = 60
    @Option(help: "Minutes of steady playback measured.") var minutes = 2.0
    @Option(help: "Another medianode binary to measure the same way (e.g. a build of today's main).") var compare: String?

    static let prefix = "medianode/writes"

    func run() async throws {
        let broker = try await MosquittoBroker()
        defer { broker.stop() }
        let scratch = try AudioFixtures.makeTemporaryDirectory("write-bench")
        defer { try? FileManager.default.removeItem(at: scratch) }
        let music = scratch.appendingPathComponent("music")
        // Long enough that the steady window never sees an item end.
        let length = 60 * minutes + 120
        for track in AudioFixtures.album(count: 3, seconds: length, album: "Writes", artist: "Bench") {
            _ = try await AudioFixtures.writeTone(track, in: music)
        }
        let own = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("medianode").path
        var columns = [("this build", own)]
        if let compare { columns.append(("--compare", compare)) }
        var results: [WriteFigures] = []
        for (index, (_, binary)) in columns.enumerated() {
            let run = WriteRun(binary: binary, broker: broker.url, music: music, length: length,
                               directory: scratch.appendingPathComponent("node-\(index)"))
            results.append(try await run.measure(commands: commands, paced: paced, minutes: minutes))
        }
        let floor = try await Self.bareSQLiteFloor(directory: scratch, minutes: minutes)

        print("Bytes written (write_bytes of /proc/PID/io), \(Self.filesystem(of: scratch.path)) under \(scratch.path); "
              + "load average before: \(results.map(\.loadBefore).joined(separator: " / "))")
        for (index, (label, binary)) in columns.enumerated() { print("  [\(index + 1)] \(label): \(binary)") }
        let header = "".padding(toLength: 46, withPad: " ", startingAt: 0)
            + columns.indices.map { "[\($0 + 1)]".padding(toLength: 26, withPad: " ", startingAt: 0) }.joined()
        print(header)
        func row(_ label: String, _ value: (WriteFigures) -> String) {
            print(label.padding(toLength: 46, withPad: " ", startingAt: 0)
                  + results.map { value($0).padding(toLength: 26, withPad: " ", startingAt: 0) }.joined())
        }
        row("start (scan, first publish)") { kib($0.start) }
        row("\(commands) mixed commands in a row") { "\(kib($0.burst)), \(perCommand($0.burst, commands))" }
        row("  seconds they took") { String(format: "%.1f s", $0.burstSeconds) }
        row("\(paced) commands, one a second") { "\(kib($0.paced)), \(perCommand($0.paced, paced))" }
        row("steady playback, per minute") { String(format: "%.1f KiB", Double($0.steady) / 1024 / minutes) }
        row("SIGTERM (the last saves)") { kib($0.shutdown) }
        for (index, figures) in results.enumerated() {
            print("[\(index + 1)] steady playback, KiB written in each 10 s: " + figures.steadySteps.map { String($0 / 1024) }.joined(separator: " "))
        }
        print(String(format: "floor: a bare SQLite file with the catalog's settings (4 KiB pages, WAL, NORMAL), one row "
                     + "updated every 10 s for %.0f min: %.1f KiB a minute, %.0f bytes a save", minutes,
                     Double(floor.bytes) / 1024 / minutes, Double(floor.bytes) / Double(max(1, floor.saves))))
    }

    func kib(_ bytes: Int) -> String { String(format: "%.1f KiB", Double(bytes) / 1024) }
    func perCommand(_ bytes: Int, _ count: Int) -> String { String(format: "%.0f B/cmd", Double(bytes) / Double(max(1, count))) }

    /// The least a save every progress interval costs in a file like the catalog: what a node writing its
    /// position there each interval pays, whatever else it does.
    static func bareSQLiteFloor(directory: URL, minutes: Double) async throws -> (bytes: Int, saves: Int) {
        let path = directory.appendingPathComponent("floor.sqlite").path
        var configuration = Configuration()
        configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA synchronous = NORMAL") }
        let pool = try DatabasePool(path: path, configuration: configuration)
        try await pool.write { db in
            try db.execute(sql: "CREATE TABLE state (id INTEGER PRIMARY KEY, elapsed REAL, savedAt REAL)")
            try db.execute(sql: "INSERT INTO state VALUES (1, 0, 0)")
        }
        let before = ProcessIO.writeBytes(pid: getpid()) ?? 0
        let saves = max(1, Int(minutes * 6))
        for index in 0..<saves {
            try await pool.write { db in
                try db.execute(sql: "UPDATE state SET elapsed = ?, savedAt = ? WHERE id = 1",
                               arguments: [Double(index) * 10, Date().timeIntervalSince1970])
            }
            try await Task.sleep(for: .seconds(10))
        }
        let bytes = (ProcessIO.writeBytes(pid: getpid()) ?? 0) - before
        try pool.close()
        return (bytes, saves)
    }

    /// The type of the filesystem holding `path`, from the longest mount point above it (tmpfs counts no writes).
    static func filesystem(of path: String) -> String {
        let mounts = (try? String(contentsOfFile: "/proc/self/mounts", encoding: .utf8)) ?? ""
        var best: (point: String, type: String) = ("", "an unknown filesystem")
        for line in mounts.split(separator: "\n") {
            let fields = line.split(separator: " ")
            guard fields.count > 2 else { continue }
            let point = String(fields[1])
            if (path == point || path.hasPrefix(point == "/" ? "/" : point + "/")), point.count >= best.point.count {
                best = (point, String(fields[2]))
            }
        }
        return best.type
    }
}

/// `/proc/PID/io`.
enum ProcessIO {
    static func writeBytes(pid: Int32) -> Int? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/io", encoding: .utf8) else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix("write_bytes:") {
            return Int(line.dropFirst("write_bytes:".count).trimmingCharacters(in: .whitespaces))
        }
        return nil
    }
}

/// What one node wrote in each part of the run.
struct WriteFigures {
    var loadBefore = ""
    var start = 0
    var burst = 0
    var burstSeconds = 0.0
    var paced = 0
    var steady = 0
    /// What each 10 s of the steady playback wrote.
    var steadySteps: [Int] = []
    var shutdown = 0
}

/// One node through the whole run: start, commands in a row, commands a second apart, steady playback, SIGTERM.
struct WriteRun {
    let binary: String
    let broker: String
    let music: URL
    let length: Double
    let directory: URL

    func measure(commands: Int, paced: Int, minutes: Double) async throws -> WriteFigures {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var figures = WriteFigures()
        figures.loadBefore = (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8))?
            .split(separator: " ").prefix(3).joined(separator: " ") ?? "?"
        let observer = try MemoryObserver(brokerURL: broker, prefix: WriteBench.prefix)
        try await observer.waitUntil("the observer's connection") { observer.client.isConnected }
        let node = Process()
        node.executableURL = URL(fileURLWithPath: binary)
        node.arguments = ["--broker", broker, "--node-id", "writes", "--library", music.path,
                          "--database", directory.appendingPathComponent("catalog.sqlite").path,
                          "--audio-sink", "fake", "--log-level", "warning"]
        try node.run()
        defer {
            if node.isRunning { kill(node.processIdentifier, SIGKILL) }
            node.waitUntilExit()
        }
        let pid = node.processIdentifier
        func written() throws -> Int {
            guard let bytes = ProcessIO.writeBytes(pid: pid) else { throw BenchError("the node exited") }
            return bytes
        }
        try await observer.waitUntil("the node's retained state") { observer.retainedStatePublished(page: MemoryBench.albumPage) }
        figures.start = try await quiet(written)

        var mix = WriteMix(length: length)
        try observer.client.publish(topic: TopicLayout(prefix: WriteBench.prefix).command("playItem"), payload: Array(#"{"indexPath":[0,1,0,0]}"#.utf8), qos: 1)
        guard await wait(observer) else { throw BenchError("no reply to playItem") }
        try await Task.sleep(for: .seconds(6))
        mix.isPlaying = true
        let burstStart = try await quiet(written, settle: false)
        let clock = ContinuousClock()
        let started = clock.now
        for _ in 0..<commands { try await send(mix.next(), observer) }
        figures.burstSeconds = (clock.now - started) / .seconds(1)
        // The last change's save may come up to a second after its reply.
        try await Task.sleep(for: .seconds(2))
        figures.burst = try written() - burstStart

        let pacedStart = try written()
        for _ in 0..<paced {
            let next = clock.now + .seconds(1)
            try await send(mix.next(), observer)
            try await Task.sleep(until: next)
        }
        try await Task.sleep(for: .seconds(2))
        figures.paced = try written() - pacedStart

        // The first track from its start, so no item ends in the window, and past the 5 s at which Recently
        // Played lists it (that update is the start of playing, not its steady state); then what the start
        // left to do (the loudness of the library, measured in the background) is let finish.
        try await send(("playItem", #"{"indexPath":[0,1,0,0]}"#), observer)
        try await send(("changePlaybackPosition", #"{"positionTime":0}"#), observer)
        try await Task.sleep(for: .seconds(6))
        _ = try await quiet(written, for: .seconds(5))
        let steadyStart = try written()
        var reading = steadyStart
        let steadyEnd = ContinuousClock.now + .seconds(60 * minutes)
        while ContinuousClock.now < steadyEnd {
            try await Task.sleep(until: min(steadyEnd, .now + .seconds(10)))
            let now = try written()
            figures.steadySteps.append(now - reading)
            reading = now
        }
        figures.steady = reading - steadyStart

        let shutdownStart = try written()
        var lastReading = shutdownStart
        kill(pid, SIGTERM)
        // Read until the process is gone: its counters go with it.
        while let bytes = ProcessIO.writeBytes(pid: pid), node.isRunning {
            lastReading = bytes
            try await Task.sleep(for: .milliseconds(2))
        }
        figures.shutdown = lastReading - shutdownStart
        await observer.client.shutdown()
        return figures
    }

    /// Waits until the node has written nothing for `calm` (at most a minute); returns its count then.
    func quiet(_ written: () throws -> Int, settle: Bool = true, for calm: Duration = .seconds(2)) async throws -> Int {
        var last = try written()
        guard settle else { return last }
        var stableSince = ContinuousClock.now
        let deadline = ContinuousClock.now + .seconds(60)
        while ContinuousClock.now - stableSince < calm, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(200))
            let now = try written()
            if now != last { (last, stableSince) = (now, .now) }
        }
        return last
    }

    func send(_ command: (name: String, payload: String), _ observer: MemoryObserver) async throws {
        try observer.client.publish(topic: TopicLayout(prefix: WriteBench.prefix).command(command.name), payload: Array(command.payload.utf8), qos: 1)
        guard await wait(observer) else { throw BenchError("no reply to \(command.name) within 15 s") }
    }

    func wait(_ observer: MemoryObserver) async -> Bool {
        await withCheckedContinuation { done in
            Thread.detachNewThread { done.resume(returning: observer.waitForReply(seconds: 15)) }
        }
    }
}

/// The commands a listener sends while driving, deterministic: the volume, pause and play, seeks, next and
/// previous, a browse and a search.
struct WriteMix {
    let length: Double
    var isPlaying = false
    var random = SeededGenerator(seed: 38)
    var count = 0

    mutating func next() -> (name: String, payload: String) {
        count += 1
        switch random.nextIndex(below: 20) {
        case 0..<5:
            return ("changeVolume", #"{"volume":\#(Double(random.nextIndex(below: 101)) / 100)}"#)
        case 5..<10:
            isPlaying.toggle()
            return (isPlaying ? "play" : "pause", "")
        case 10..<15:
            return ("changePlaybackPosition", #"{"positionTime":\#(random.nextIndex(below: Int(length) - 30))}"#)
        case 15: return ("nextTrack", "")
        case 16: return ("previousTrack", "")
        case 17, 18: return ("browse", #"{"indexPath":[0,1,0]}"#)
        default: return ("search", #"{"query":"Bench"}"#)
        }
    }
}
