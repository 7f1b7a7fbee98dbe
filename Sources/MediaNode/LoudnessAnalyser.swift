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
    /// Opens once the initial state, the tree's upper levels included, is out.
    let started: Latch
    let logger: Logger

    /// Files per child process: few enough that a shutdown never waits long for one, many enough that the
    /// child's start (GStreamer's registry) is a small share of its work.
    static let batchSize = 16

    func run() async throws {
        await cancelWhenGracefulShutdown { [self] in
            await started.wait()
            var changes = database.changes().makeAsyncIterator()
            while !Task.isCancelled {
                await measureAll()
                guard await changes.next() != nil else { return }
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
        if measured > 0 {
            let seconds = (ContinuousClock.now - began) / .seconds(1)
            logger.info("loudness: measured \(measured) files in \(String(format: "%.1f", seconds)) s")
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

    /// Runs `medianode catalog measure` on `paths` and returns its output lines (nil: it could not start);
    /// terminates it when the task is cancelled (a shutdown never waits for a batch).
    func runChild(paths: [String]) async -> [String]? {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: measurer)
        process.arguments = ["catalog", "measure"] + paths
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        let child = ChildProcess(process)
        return await withTaskCancellationHandler {
            let finished: Bool = await withCheckedContinuation { continuation in
                process.terminationHandler = { _ in continuation.resume(returning: true) }
                do {
                    try process.run()
                } catch {
                    process.terminationHandler = nil
                    logger.warning("loudness: cannot start \(measurer): \(error)")
                    continuation.resume(returning: false)
                }
            }
            guard finished else { return nil }
            let data = output.fileHandleForReading.readDataToEndOfFile()
            return String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init)
        } onCancel: {
            child.terminate()
        }
    }
}

/// A child process the cancellation handler may stop from another thread.
private final class ChildProcess: @unchecked Sendable {
    private let process: Process
    init(_ process: Process) { self.process = process }
    func terminate() { if process.isRunning { process.terminate() } }
}
