import ArgumentParser
import CatalogStore
import Downloads
import Foundation
import MediaNodeFixtures
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// An episode-sized file downloaded by the node's download manager from a local HTTP server (into
/// `partial/`, checked, fsynced and renamed into place, its row written to a catalog file) beside the `curl`
/// tool downloading the same file to a file in the same folder (the floor, timed by curl itself), interleaved
/// in blocks; and the CPU time the manager's process spends per downloaded MiB.
struct DownloadBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "download", abstract: "An episode downloaded by the download manager beside curl downloading the same file.")

    @Option(help: "Downloads of each kind.") var repetitions = 20
    @Option(help: "Size of the file, in MiB.") var megabytes = 50

    func run() async throws {
        let directory = try AudioFixtures.makeTemporaryDirectory("download-bench")
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("episode.mp3")
        let size = megabytes << 20
        try Data((0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 12) }).write(to: file)
        let server = try await RangeHTTPServer()
        defer { server.stop() }
        await server.serve("/episode.mp3", file: file, contentType: "audio/mpeg")
        let url = server.url("/episode.mp3").absoluteString
        let database = try CatalogDatabase(path: directory.appendingPathComponent("catalog.sqlite").path)
        defer { try? database.close() }
        let manager = DownloadManager(directory: directory.appendingPathComponent("downloads"), store: database)
        let finished = Finished(manager)
        let runner = Task { await manager.run() }
        defer { runner.cancel() }
        let curlTarget = directory.appendingPathComponent("curl.mp3")

        var subject = LatencySamples(), floor = LatencySamples()
        var cpu = Duration.zero, downloaded = 0
        var index = 0
        for round in 0...(repetitions / 5) {
            var subjectBlock = LatencySamples(), floorBlock = LatencySamples()
            var blockCPU = Duration.zero
            for _ in 0..<5 {
                index += 1
                let identifier = "bench:\(index)"
                let cpuBefore = Self.processCPU()
                let start = ContinuousClock.now
                try await manager.download(identifier: identifier, url: url)
                guard let bytes = await finished.wait(for: identifier), bytes == Int64(size) else {
                    throw ValidationError("the download manager did not finish \(identifier): \(manager.record(for: identifier)?.message ?? "?")")
                }
                subjectBlock.append(ContinuousClock.now - start)
                blockCPU += Self.processCPU() - cpuBefore
                try await manager.delete(identifier: identifier)
            }
            for _ in 0..<5 {
                let (status, output) = try await ToolRun.capture(
                    "curl", ["-s", "-o", curlTarget.path, "-w", "%{time_total} %{size_download}", url])
                let fields = output.split(separator: " ")
                guard status == 0, fields.count == 2, let seconds = Double(fields[0]), Int(fields[1]) == size else {
                    throw ValidationError("curl failed: \(output)")
                }
                floorBlock.append(.microseconds(Int64(seconds * 1e6)))
                try? FileManager.default.removeItem(at: curlTarget)
            }
            if round == 0 { continue }  // warm-up
            subject.values += subjectBlock.values
            floor.values += floorBlock.values
            cpu += blockCPU
            downloaded += 5 * size
        }
        report("download of a \(megabytes) MiB episode from a local server (Python's http.server) to disk, \(subject.values.count) of each:",
               subject: ("medianode: DownloadManager (partial, check, rename)", subject),
               floor: ("floor: curl -o FILE (its own time_total)", floor))
        let mebibytes = Double(downloaded) / Double(1 << 20)
        let seconds = Double(cpu.components.seconds) + Double(cpu.components.attoseconds) / 1e18
        let throughput = Double(size) / Double(1 << 20) / (subject.median / 1e6)
        let floorThroughput = Double(size) / Double(1 << 20) / (floor.median / 1e6)
        print(String(format: "  throughput at p50: medianode %.1f MiB/s, curl %.1f MiB/s (%.2fx)",
                     throughput, floorThroughput, throughput / floorThroughput))
        print(String(format: "  CPU time of this process per downloaded MiB: %.2f ms (user + system, %.0f MiB)",
                     seconds * 1000 / mebibytes, mebibytes))
    }

    /// User plus system CPU time of this process so far.
    static func processCPU() -> Duration {
        var usage = rusage()
        getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
        func duration(_ time: timeval) -> Duration { .seconds(Int64(time.tv_sec)) + .microseconds(Int64(time.tv_usec)) }
        return duration(usage.ru_utime) + duration(usage.ru_stime)
    }

    /// The manager's finished events, gathered by one reader.
    final class Finished: Sendable {
        final class Box: Sendable { let bytes = Mutex<[String: Int64]>([:]) }
        let box = Box()
        let reader: Task<Void, Never>

        init(_ manager: DownloadManager) {
            let box = self.box
            reader = Task {
                for await event in manager.events {
                    if case let .finished(identifier, bytes) = event { box.bytes.withLock { $0[identifier] = bytes } }
                    if case let .failed(identifier, _) = event { box.bytes.withLock { $0[identifier] = -1 } }
                }
            }
        }

        func wait(for identifier: String) async -> Int64? {
            let deadline = ContinuousClock.now + .seconds(120)
            while ContinuousClock.now < deadline {
                if let bytes = box.bytes.withLock({ $0[identifier] }) { return bytes }
                try? await Task.sleep(for: .milliseconds(5))
            }
            return nil
        }
    }
}
