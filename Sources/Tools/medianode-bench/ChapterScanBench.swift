import ArgumentParser
import CatalogStore
import ContentTree
import Foundation
import MediaNodeFixtures

/// The cost of chapters to the library scan and to an item's read: a generated library of chaptered books
/// (half MP3 with ID3v2 CHAP frames, half Ogg Vorbis with CHAPTERnnn comments) scanned beside the same
/// library without chapters, in the same run, each into a fresh catalog file.
struct ChapterScanBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "chapter-scan",
        abstract: "Scan time of a library of chaptered files beside the same library without chapters.")

    @Option(help: "Files in each library.") var files = 1_000
    @Option(help: "Chapters per chaptered file.") var chapters = 20
    @Option(help: "Where the libraries are generated (kept between runs).") var folder = "/tmp/medianode-bench-chapters"
    @Option(help: "Scans of each library, interleaved.") var rounds = 5

    func run() async throws {
        quietLogs()
        print("load average at start: \(loadAverage())")
        let root = URL(fileURLWithPath: folder).appendingPathComponent("\(files)-\(chapters)")
        let chaptered = root.appendingPathComponent("chaptered"), plain = root.appendingPathComponent("plain")
        try await generate(into: chaptered, chapters: chapters)
        try await generate(into: plain, chapters: 0)
        let work = try AudioFixtures.makeTemporaryDirectory("bench-chapters")
        defer { try? FileManager.default.removeItem(at: work) }

        var scans: [String: [Double]] = ["chaptered": [], "plain": []]
        var reads: [String: LatencySamples] = ["chaptered": LatencySamples(), "plain": LatencySamples()]
        for round in 1...max(1, rounds) {
            // Alternate who goes first, so neither always finds the page cache the other warmed.
            let order = round % 2 == 0 ? [("plain", plain), ("chaptered", chaptered)] : [("chaptered", chaptered), ("plain", plain)]
            for (name, music) in order {
                let (seconds, count, withChapters, samples) = try await scanOnce(music, path: work.appendingPathComponent("\(name)-\(round).sqlite").path)
                scans[name]!.append(seconds)
                reads[name]!.values += samples.values
                print(String(format: "round %d: %@ scan: %d files (%d with chapters) in %.3f s (%.0f files/s)",
                             round, name as NSString, count, withChapters, seconds, Double(count) / seconds))
            }
        }
        func summary(_ values: [Double]) -> (median: Double, worst: Double) {
            let sorted = values.sorted()
            return (sorted[sorted.count / 2], sorted.last!)
        }
        let ours = summary(scans["chaptered"]!), floor = summary(scans["plain"]!)
        print(String(format: "full scan of %d files, %d rounds: with %d chapters each median %.3f s (worst %.3f s); "
                     + "without chapters median %.3f s (worst %.3f s); ratio of medians %.2fx",
                     files, rounds, chapters, ours.median, ours.worst, floor.median, floor.worst, ours.median / floor.median))
        report("reading one item as contentItem does (the item, its chapters):",
               subject: ("with \(chapters) chapters", reads["chaptered"]!), floor: ("without chapters", reads["plain"]!))
        print("load average at end: \(loadAverage())")
    }

    /// One full scan into a fresh catalog file; then every playable read once by identifier.
    func scanOnce(_ music: URL, path: String) async throws -> (Double, Int, Int, LatencySamples) {
        let database = try CatalogDatabase(path: path, checkIntegrity: false)
        defer { try? database.close() }
        let clock = ContinuousClock()
        var report = CatalogRefresher.Report.unchanged
        let scan = await clock.measure {
            report = await CatalogRefresher(database: database).refresh(LocalFolderProvider(roots: [music]))
        }
        guard case .updated = report else { throw ValidationError("scan failed: \(report)") }
        let library = try await database.children(of: ContentItem.Section.library, offset: 0, limit: 10)
        let songs = try requireSongs(library)
        var identifiers: [String] = []
        var offset: Int? = 0
        while let start = offset {
            let page = try await database.children(of: songs, offset: start, limit: 500)
            identifiers += page.items.map(\.identifier)
            offset = page.nextOffset
        }
        var samples = LatencySamples()
        var withChapters = 0
        for identifier in identifiers {
            let started = clock.now
            let item = try await database.item(identifier: identifier)
            samples.append(clock.now - started)
            if item?.chapters != nil { withChapters += 1 }
        }
        return (seconds(scan), identifiers.count, withChapters, samples)
    }

    /// Two seed books encoded once (an MP3 and an Ogg, `chapters` chapters each, none when 0), copied and
    /// retagged into author/book folders.
    func generate(into music: URL, chapters: Int) async throws {
        let marker = music.appendingPathComponent(".complete")
        if FileManager.default.fileExists(atPath: marker.path) { return }
        try? FileManager.default.removeItem(at: music)
        let seeds = music.appendingPathComponent(".seeds")
        let parts = (0..<max(1, chapters)).map { ToneChapter("Chapter \($0 + 1)", frequency: 300 + 40 * $0, seconds: 0.1) }
        for format in ["mp3", "ogg"] {
            try await AudioFixtures.writeChapteredBook(
                parts, named: "seed.\(format)", marks: chapters == 0 ? [] : nil, in: seeds)
        }
        for index in 0..<files {
            let format = index % 2 == 0 ? "mp3" : "ogg"
            let directory = music.appendingPathComponent("Author \(index / 100)/Book \(index / 10)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let target = directory.appendingPathComponent(String(format: "%02d Part %d.%@", index % 10 + 1, index, format))
            try FileManager.default.copyItem(at: seeds.appendingPathComponent("seed.\(format)"), to: target)
            guard AudioFixtures.retag(target, title: "Part \(index)", artist: "Author \(index / 100)",
                                      album: "Book \(index / 10)", trackNumber: index % 10 + 1)
            else { throw ValidationError("could not tag \(target.path)") }
        }
        try FileManager.default.removeItem(at: seeds)
        _ = FileManager.default.createFile(atPath: marker.path, contents: Data())
    }
}

/// The Songs list of the Library section's first page.
private func requireSongs(_ library: ContentPage) throws -> String {
    guard library.items.count > 2 else { throw ValidationError("the scan made no Library lists") }
    return library.items[2].identifier
}

func loadAverage() -> String {
    ((try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8)) ?? "unknown")
        .split(separator: " ").prefix(3).joined(separator: " ")
}
