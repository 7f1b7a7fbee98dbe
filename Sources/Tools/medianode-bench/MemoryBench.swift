import ArgumentParser
import Foundation
#if canImport(Glibc)
import Glibc
import MediaNode
#endif
import MediaNodeFixtures

/// What a node costs in memory: the real daemon as a child process, with a small generated library, read
/// at start, idle, playing and after many mixed requests, beside what the parts it is made of cost alone.
struct MemoryBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "memory",
        abstract: "The node's RSS and PSS at start, idle, playing and after mixed requests, beside bare floors.")

    @Option(help: "Mixed requests sent (play, pause, seek, browse, contentItem, hostile payloads).")
    var requests = 10_000
    @Option(help: "Seconds left idle after start before the idle reading.") var idleSeconds = 5
    @Option(help: "The node's --audio-sink: fake (real-time) or wav:PATH.") var sink = "fake"
    @Option(help: "Mapped files listed, largest RSS first.") var top = 12

    static let prefix = "medianode/memory"
    /// The library's album, where the node lists it: root, Library, Albums, the album.
    static let albumPage = "content/tree/0/1"

    func run() async throws {
        let broker = try await MosquittoBroker()
        defer { broker.stop() }
        let scratch = try AudioFixtures.makeTemporaryDirectory("memory-bench")
        defer { try? FileManager.default.removeItem(at: scratch) }
        let music = scratch.appendingPathComponent("music")
        var files: [URL] = []
        for track in AudioFixtures.album(count: 3, seconds: 30, album: "Memory", artist: "Bench") {
            files.append(try await AudioFixtures.writeTone(track, in: music))
        }

        let observer = try MemoryObserver(brokerURL: broker.url, prefix: Self.prefix)
        try await observer.waitUntil("the observer's connection") { observer.client.isConnected }
        let bench = URL(fileURLWithPath: CommandLine.arguments[0])
        let node = Process()
        node.executableURL = bench.deletingLastPathComponent().appendingPathComponent("medianode")
        node.arguments = ["--broker", broker.url, "--node-id", "memory", "--library", music.path,
                          "--database", scratch.appendingPathComponent("catalog.sqlite").path,
                          "--audio-sink", sink, "--log-level", "warning"]
        try node.run()
        defer {
            if node.isRunning { kill(node.processIdentifier, SIGKILL) }
            node.waitUntilExit()
        }
        let pid = node.processIdentifier
        var rows: [(String, ProcessMemory)] = []
        func read(_ label: String) throws {
            guard let memory = ProcessMemory(pid: pid) else { throw BenchError("the node exited (\(label))") }
            rows.append((label, memory))
        }

        try await observer.waitUntil("the node's retained state") { observer.retainedStatePublished(page: Self.albumPage) }
        try read("medianode, retained state published")
        let startFiles = MappedFiles(pid: pid)
        try await Task.sleep(for: .seconds(idleSeconds))
        try read("medianode, idle \(idleSeconds) s later")

        let firstTrack = Array(#"{"indexPath":[0,1,0,0]}"#.utf8)
        try observer.client.publish(topic: TopicLayout(prefix: Self.prefix).command("playItem"), payload: firstTrack, qos: 1)
        try await observer.waitUntil("now playing") {
            let nowPlaying = observer.payload("nowplaying").flatMap {
                try? JSONSerialization.jsonObject(with: Data($0)) as? [String: Any]
            }
            return nowPlaying?["state"] as? String == "playing"
        }
        try await Task.sleep(for: .seconds(3))
        try read("medianode, playing 3 s")

        observer.drainReplies()
        let mix = RequestMix(tree: observer.tree(), seed: 17)
        let clock = ContinuousClock()
        let started = clock.now
        let lost = try await mix.send(requests, to: observer)
        let seconds = (clock.now - started) / .seconds(1)
        try await Task.sleep(for: .seconds(2))
        try read("medianode, after \(requests) requests")
        try observer.client.publish(topic: TopicLayout(prefix: Self.prefix).command("stop"), payload: [], qos: 1)
        try await Task.sleep(for: .seconds(3))
        try read("medianode, then stopped 3 s")
        let endFiles = MappedFiles(pid: pid)
        let peak = ProcessMemory.peakKiB(pid: pid)

        let floors = try await measureFloors(broker: broker, file: files[0], scratch: scratch)

        print("Memory of a node: \(files.count) tracks in its library, --audio-sink \(sink), 2 cores shared")
        print(String(repeating: " ", count: 44) + ProcessMemory.header)
        for (label, memory) in rows + floors {
            print(label.padding(toLength: 44, withPad: " ", startingAt: 0) + memory.row)
        }
        print(String(format: "  %d mixed requests in %.1f s (%.0f/s), %d without a reply within 15 s; peak RSS (VmHWM) %.1f MiB",
                     requests, seconds, Double(requests) / max(seconds, 0.001), lost, mib(peak ?? 0)))
        for (label, mapped) in [("at start", startFiles), ("after the requests, stopped", endFiles)] {
            print("  The largest mappings \(label), RSS and PSS (MiB):")
            for line in mapped?.lines(top: top) ?? ["    (smaps unreadable)"] { print(line) }
        }
        await observer.client.shutdown()
    }
}
