import CatalogStore
import ContentTree
import Foundation
import GStreamerAudio
import Logging
import MediaJSON
import ServiceLifecycle

/// Measures the loudness of the local files that carry no loudness tags, in the background, and keeps what
/// it finds in the catalog, where the controller finds it at the item's next load.
///
/// It owns the measuring: once the node's state is out, and again after each catalog change (a scan, a
/// refresh), it takes the unmeasured files a batch at a time and hands each batch to a child process
/// (`medianode catalog measure`) at the lowest CPU priority, so decoding never takes a core from playback,
/// a browse or a command, and a decoder that crashes on a damaged file takes only the child with it. A
/// file found silent, unreadable or too long is kept as such (logged once, since it is not measured again
/// while it is unchanged) and plays unlevelled.
struct LoudnessAnalyser: Service {
    let database: CatalogDatabase
    /// The `medianode` executable whose `catalog measure` does the work.
    let measurer: String
    /// The content tree, whose published pages show each measured item's `loudness`.
    let content: NodeContent?
    /// The downloads folder, whose finished copies of episodes are measured too (nil: none).
    let downloadsDirectory: URL?
    /// Opens once the initial state, the tree's upper levels included, is out.
    let started: Latch
    let logger: Logger

    /// Files per child process: few enough that a shutdown never waits long for one, many enough that the
    /// child's start (GStreamer's registry) is a small share of its work.
    static let batchSize = 16

    /// How often it looks for new downloads, which reach the catalog without a change of its tree.
    static let downloadCheck = Duration.seconds(60)

    func run() async throws {
        await cancelWhenGracefulShutdown { [self] in
            // Each catalog change and each tick wakes one pass; a wake during a pass waits for its end.
            let (wakes, wake) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
            await withDiscardingTaskGroup { group in
                group.addTask {
                    for await _ in database.changes() { wake.yield() }
                }
                group.addTask {
                    while (try? await Task.sleep(for: Self.downloadCheck)) != nil { wake.yield() }
                }
                group.addTask {
                    await started.wait()
                    await measureAll()
                    for await _ in wakes { await measureAll() }
                }
            }
        }
    }

    /// Measures until nothing is left unmeasured (or the task is cancelled).
    func measureAll() async {
        var measured = 0
        let began = ContinuousClock.now
        while !Task.isCancelled {
            let batch: [UnmeasuredFile]
            do {
                batch = try await database.unmeasuredFiles(limit: Self.batchSize)
            } catch {
                logger.warning("loudness: cannot read the files to measure: \(error)")
                return
            }
            guard !batch.isEmpty else { break }
            let results = await measure(batch)
            guard !Task.isCancelled, !results.isEmpty else { break }
            do {
                let containers = try await database.storeMeasurements(results)
                if !containers.isEmpty { content?.mark(CatalogDiff(changedContainers: containers, updatedItems: results.count)) }
            } catch {
                logger.warning("loudness: cannot keep measurements: \(error)")
                return
            }
            measured += results.count
        }
        measured += await measureDownloads()
        if measured > 0 {
            let seconds = (ContinuousClock.now - began) / .seconds(1)
            logger.info("loudness: measured \(measured) files in \(String(format: "%.1f", seconds)) s")
        }
    }

    /// The finished copies of episodes in the downloads folder not measured yet, by the URI they play from.
    /// Returns how many were measured.
    func measureDownloads() async -> Int {
        guard let directory = downloadsDirectory, !Task.isCancelled else { return 0 }
        do {
            let copies = try await database.downloadRecords().filter { $0.status == .downloaded }
                .map { directory.appendingPathComponent($0.fileName) }
                .filter { FileManager.default.fileExists(atPath: $0.path) }
            let known = try await database.loudnessRows(among: copies.map(\.absoluteString))
            let unmeasured = copies.filter { !known.contains($0.absoluteString) }
                .map { UnmeasuredFile(uri: $0.absoluteString, path: $0.path, duration: nil) }
            var measured = 0
            for start in stride(from: 0, to: unmeasured.count, by: Self.batchSize) where !Task.isCancelled {
                let results = await measure(Array(unmeasured[start ..< min(unmeasured.count, start + Self.batchSize)]))
                guard !results.isEmpty else { break }
                _ = try await database.storeMeasurements(results)
                measured += results.count
            }
            return measured
        } catch {
            logger.warning("loudness: cannot measure the downloaded copies: \(error)")
            return 0
        }
    }

    /// One batch: files longer than the meter takes are refused from their catalog length without
    /// decoding; the rest go to the child. A file the child did not answer for is the one it died on.
    func measure(_ batch: [UnmeasuredFile]) async -> [(uri: String, result: StoredMeasurement)] {
        var results: [(uri: String, result: StoredMeasurement)] = []
        var toDecode: [UnmeasuredFile] = []
        for file in batch {
            if let duration = file.duration, duration > LoudnessMeter.longestSeconds {
                logger.notice("loudness: not measuring \(file.path): \(Int(duration / 3600)) hours long; it plays unlevelled")
                results.append((file.uri, .none))
            } else {
                toDecode.append(file)
            }
        }
        guard !toDecode.isEmpty else { return results }
        // A child that could not start measured nothing: no file is blamed, and the batch waits for the next try.
        guard let lines = await runChild(paths: toDecode.map(\.path)), !Task.isCancelled else { return [] }
        var answered = Set<String>()
        for line in lines {
            guard let value = try? JSONValue(parsing: Array(line.utf8)), let path = value["path"]?.stringValue,
                  let file = toDecode.first(where: { $0.path == path })
            else { continue }
            answered.insert(path)
            if let loudness = value["loudness"]?.numberValue {
                results.append((file.uri, .loudness(loudness, peak: value["peak"]?.numberValue ?? 0)))
            } else {
                let reason = value["refused"]?.stringValue ?? "silent"
                logger.notice("loudness: \(path) has no loudness (\(reason)); it plays unlevelled")
                results.append((file.uri, .none))
            }
        }
        if let crashed = toDecode.first(where: { !answered.contains($0.path) }) {
            logger.warning("loudness: the measurement stopped at \(crashed.path); it plays unlevelled")
            results.append((crashed.uri, .none))
        }
        return results
    }

    /// Runs `medianode catalog measure` on `paths` and returns its output lines (nil: it could not start,
    /// or the task was cancelled). A cancelled task kills the child and returns at once: a shutdown never
    /// waits for a batch, nor for a child at the lowest priority to be given the CPU to die on a busy
    /// machine (it held nothing the node needs).
    func runChild(paths: [String]) async -> [String]? {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: measurer)
        process.arguments = ["catalog", "measure"] + paths
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        let child = ChildProcess(process)
        let finished: Bool = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                guard child.begin(continuation) else { return }
                process.terminationHandler = { _ in child.end(finished: true) }
                do {
                    try process.run()
                } catch {
                    process.terminationHandler = nil
                    logger.warning("loudness: cannot start \(measurer): \(error)")
                    child.end(finished: false)
                }
                child.started()
            }
        } onCancel: {
            child.kill()
        }
        guard finished, !Task.isCancelled else { return nil }
        let data = output.fileHandleForReading.readDataToEndOfFile()
        return String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init)
    }
}
