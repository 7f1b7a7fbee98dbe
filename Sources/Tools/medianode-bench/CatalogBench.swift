import ArgumentParser
import CatalogStore
import Foundation
import Logging
import MediaNodeFixtures

/// Import rate, child-page latency and size of a 100k-item JSON catalog (beside hand-written SQL).
struct CatalogImportBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "catalog-import", abstract: "Import rate, page p50/p99 vs hand SQL, and size of a large JSON catalog.")

    @Option(help: "Items in the generated catalog.") var items = 100_000
    @Option(help: "Child-page queries timed, spread over the depths.") var pages = 6_000
    @Option(help: "Milliseconds between page queries, as browse requests arrive; 0 runs them back to back.")
    var spacingMs = 0

    func run() async throws {
        quietLogs()
        let directory = try AudioFixtures.makeTemporaryDirectory("bench-import")
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try await CatalogMeasurement.run(
            items: items, pageQueries: pages, spacing: .milliseconds(max(0, spacingMs)), directory: directory)
        print(result.importSummary)
        var allStore = LatencySamples(), allHand = LatencySamples()
        for level in result.pages {
            let store = LatencySamples(values: level.store), hand = LatencySamples(values: level.handSQL)
            allStore.values += level.store
            allHand.values += level.handSQL
            report(
                "child page, limit \(result.pageLimit), depth \(level.depth) (\(level.containers) containers, "
                    + "up to \(level.largestChildCount) children, random offset, "
                    + (spacingMs > 0 ? "\(spacingMs) ms apart)" : "back to back)"),
                subject: ("store children(of:offset:limit:)", store), floor: ("same SQL by hand, bare SQLite", hand))
        }
        report(
            "child page, all depths", subject: ("store children(of:offset:limit:)", allStore),
            floor: ("same SQL by hand, bare SQLite", allHand))
        let worst = result.pages.map { LatencySamples(values: $0.store).percentile(99) }.max() ?? .nan
        print(String(format: "target: store p99 under 500 µs at every depth: %@ (worst depth p99 %.1f µs)",
                     worst < 500 ? "met" : "missed", worst))
    }
}

/// Scan rate of a generated tagged folder through the library scanner, beside Debian's mpd scanning the
/// same folder in the same run (`apt-get install mpd mpc`).
struct CatalogScanBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "catalog-scan", abstract: "Scan rate (files/s) of a tagged folder, beside mpd on the same folder.")

    @Option(help: "Files in the generated folder.") var files = 5_000
    @Option(help: "Distinct encoded tones; the rest are retagged copies.") var distinct = 100
    @Option(help: "Where the folder is generated (kept between runs).") var folder = "/tmp/medianode-bench-scan"

    @Option(help: "Scans of each kind, interleaved (each into a fresh database).") var rounds = 3

    func run() async throws {
        quietLogs()
        let music = URL(fileURLWithPath: folder).appendingPathComponent("\(files)")
        try await generate(into: music)
        let work = try AudioFixtures.makeTemporaryDirectory("bench-scan")
        defer { try? FileManager.default.removeItem(at: work) }
        let tools = which("mpd").flatMap { mpd in which("mpc").map { (mpd, $0) } }
        if tools == nil { print("mpd: not installed (apt-get install mpd mpc) — no comparison") }

        var ours: [Double] = [], theirs: [Double] = []
        for round in 1...max(1, rounds) {
            // Alternate who goes first, so neither always finds the page cache the other warmed.
            for turn in 0..<2 {
                if (round + turn) % 2 == 0 {
                    let (seconds, count, rescan) = try await scanOnce(music, work: work, round: round)
                    ours.append(Double(count) / seconds)
                    print(String(format: "round %d: medianode scan: %d files in %.3f s (%.0f files/s, tags + tree + store); "
                                 + "unchanged rescan %.3f s", round, count, seconds, Double(count) / seconds, rescan))
                } else if let (mpd, mpc) = tools {
                    let (seconds, songs) = try await runMPD(mpd: mpd, mpc: mpc, music: music, work: work, round: round)
                    theirs.append(Double(songs) / seconds)
                    print(String(format: "round %d: mpd 'update' of the same folder: %d songs in %.3f s (%.0f files/s)",
                                 round, songs, seconds, Double(songs) / seconds))
                }
            }
        }
        let median = { (rates: [Double]) in rates.sorted()[rates.count / 2] }
        guard !theirs.isEmpty else { return }
        print(String(format: "median of %d rounds: medianode %.0f files/s, mpd %.0f files/s, ratio %.2fx "
                     + "(target: at least 1.00x)", ours.count, median(ours), median(theirs), median(ours) / median(theirs)))
    }

    /// One full scan into a fresh database, then an unchanged rescan: (seconds, files, rescan seconds).
    func scanOnce(_ music: URL, work: URL, round: Int) async throws -> (Double, Int, Double) {
        let path = work.appendingPathComponent("catalog-\(round).sqlite").path
        let database = try CatalogDatabase(path: path, checkIntegrity: false)
        let provider = LocalFolderProvider(roots: [music])
        let clock = ContinuousClock()
        var report = CatalogRefresher.Report.unchanged
        let scan = await clock.measure { report = await CatalogRefresher(database: database).refresh(provider) }
        let playables = try await database.summary().playables
        let rescan = await clock.measure { _ = await CatalogRefresher(database: database).refresh(provider) }
        try database.close()
        guard case .updated = report else { throw ValidationError("scan failed: \(report)") }
        return (seconds(scan), playables, seconds(rescan))
    }

    /// `distinct` tones encoded once, then copied and retagged into artist/album folders.
    func generate(into music: URL) async throws {
        let marker = music.appendingPathComponent(".complete")
        if FileManager.default.fileExists(atPath: marker.path) { return }
        try? FileManager.default.removeItem(at: music)
        let seeds = music.appendingPathComponent(".seeds")
        let started = ContinuousClock.now
        // One encoder per core at a time.
        for batch in stride(from: 0, to: distinct, by: ProcessInfo.processInfo.activeProcessorCount) {
            await withTaskGroup(of: Void.self) { group in
                for index in batch..<min(distinct, batch + ProcessInfo.processInfo.activeProcessorCount) {
                    group.addTask {
                        _ = try? await AudioFixtures.writeTone(
                            ToneTrack(fileName: "seed\(index).ogg", frequency: 200 + 10 * index, seconds: 1, title: "Seed \(index)"),
                            in: seeds)
                    }
                }
            }
        }
        for index in 0..<files {
            let artist = index / 500, album = index / 10
            let directory = music.appendingPathComponent("Artist \(artist)/Album \(album)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let target = directory.appendingPathComponent(String(format: "%02d Track %d.ogg", index % 10 + 1, index))
            try FileManager.default.copyItem(at: seeds.appendingPathComponent("seed\(index % distinct).ogg"), to: target)
            guard AudioFixtures.retag(target, title: "Track \(index)", artist: "Artist \(artist)",
                                      album: "Album \(album)", trackNumber: index % 10 + 1)
            else { throw ValidationError("could not tag \(target.path)") }
        }
        try FileManager.default.removeItem(at: seeds)
        _ = FileManager.default.createFile(atPath: marker.path, contents: Data())
        print(String(format: "generated %d tagged files in %.1f s", files, seconds(ContinuousClock.now - started)))
    }

    /// Starts mpd with a throwaway config (null output, its own database), times `mpc update --wait`.
    func runMPD(mpd: String, mpc: String, music: URL, work: URL, round: Int) async throws -> (Double, Int) {
        let port = 6600 + Int.random(in: 100..<900)
        let config = work.appendingPathComponent("mpd.conf")
        try """
            music_directory "\(music.path)"
            db_file "\(work.appendingPathComponent("mpd-\(round).db").path)"
            state_file "\(work.appendingPathComponent("mpd.state").path)"
            log_file "\(work.appendingPathComponent("mpd.log").path)"
            bind_to_address "127.0.0.1"
            port "\(port)"
            auto_update "no"
            audio_output {
                type "null"
                name "null"
            }
            """.write(to: config, atomically: true, encoding: .utf8)
        let daemon = Process()
        daemon.executableURL = URL(fileURLWithPath: mpd)
        daemon.arguments = ["--no-daemon", config.path]
        try daemon.run()
        defer {
            daemon.terminate()
            daemon.waitUntilExit()
        }
        let deadline = Date().addingTimeInterval(10)
        while (try? await capture(mpc, ["-p", "\(port)", "status"]))?.status != 0 {
            guard Date() < deadline else { throw ValidationError("mpd did not start") }
            try await Task.sleep(for: .milliseconds(50))
        }
        let started = Date()
        _ = try await capture(mpc, ["-p", "\(port)", "update", "--wait"])
        let elapsed = Date().timeIntervalSince(started)
        let stats = try await capture(mpc, ["-p", "\(port)", "stats"]).output
        let songs = stats.split(separator: "\n").first { $0.hasPrefix("Songs:") }
            .flatMap { Int($0.dropFirst(6).trimmingCharacters(in: .whitespaces)) } ?? 0
        return (elapsed, songs)
    }
}

func quietLogs() {
    LoggingSystem.bootstrap { label in
        var handler = StreamLogHandler.standardError(label: label)
        handler.logLevel = .warning
        return handler
    }
}

func seconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
}

func which(_ tool: String) -> String? {
    ["/usr/bin/", "/usr/local/bin/", "/usr/sbin/"].map { $0 + tool }.first { FileManager.default.isExecutableFile(atPath: $0) }
}

func capture(_ tool: String, _ arguments: [String]) async throws -> (status: Int32, output: String) {
    try await ToolRun.capture(tool, arguments)
}
