import ArgumentParser
import CTagLib
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
        try await generate(into: chaptered, withChapters: true)
        try await generate(into: plain, withChapters: false)
        let work = try AudioFixtures.makeTemporaryDirectory("bench-chapters")
        defer { try? FileManager.default.removeItem(at: work) }

        var scans: [String: [Double]] = ["chaptered": [], "plain": []]
        var reads: [String: LatencySamples] = ["chaptered": LatencySamples(), "plain": LatencySamples()]
        for round in 1...max(1, rounds) {
            // Alternate who goes first, so neither always finds the page cache the other warmed.
            let order = round % 2 == 0 ? [("plain", plain), ("chaptered", chaptered)] : [("chaptered", chaptered), ("plain", plain)]
            for (name, music) in order {
                let path = work.appendingPathComponent("\(name)-\(round).sqlite").path
                let (scan, count, withChapters, samples) = try await scanOnce(music, path: path)
                scans[name]!.append(scan.total)
                reads[name]!.values += samples.values
                let bytes = [path, path + "-wal"].compactMap { try? FileManager.default.attributesOfItem(atPath: $0)[.size] as? Int }
                    .reduce(0, +)
                print(String(format: "round %d: %@ scan: %d files (%d with chapters) in %.3f s (%.0f files/s: reading %.3f s, "
                             + "storing %.3f s); catalog file and WAL %d KiB", round, name as NSString, count, withChapters,
                             scan.total, Double(count) / scan.total, scan.read, scan.store, bytes / 1024))
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
        // Where a scan's time goes: the scanner's read of one file beside TagLib's own C API opening it (which
        // parses every tag frame, the chapters' included), one file at a time, for both libraries.
        for (name, music) in [("chaptered", chaptered), ("plain", plain)] {
            let (ours, bare) = fileReads(music, count: min(files, 400), rounds: rounds)
            report("reading one \(name) file: the scanner (TagLib's C++ API, tags, picture, chapters, checked) beside a bare open:",
                   subject: ("scanner's read", ours), floor: ("taglib_file_new + tag + properties", bare))
        }
        print("load average at end: \(loadAverage())")
    }

    /// One full scan into a fresh catalog file; then every playable read once by identifier.
    func scanOnce(_ music: URL, path: String)
        async throws -> ((total: Double, read: Double, store: Double), Int, Int, LatencySamples) {
        let database = try CatalogDatabase(path: path, checkIntegrity: false)
        defer { try? database.close() }
        let clock = ContinuousClock()
        // The refresher's steps, timed apart: reading the files (on every core), then storing the snapshot.
        let provider = LocalFolderProvider(roots: [music])
        let started = clock.now
        try await database.register(provider.source)
        let state = try await database.syncState(for: provider.source.identifier)
        guard case let .content(snapshot, validators) = try await provider.load(RefreshContext(syncState: state, database: database))
        else { throw ValidationError("the scan found nothing new") }
        let read = clock.now
        try await database.replaceContent(of: provider.source.identifier, with: snapshot, validators: validators)
        let stored = clock.now
        let scan = (total: seconds(stored - started), read: seconds(read - started), store: seconds(stored - read))
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
        return (scan, identifiers.count, withChapters, samples)
    }

    /// Per-file read times of the first `count` audio files under `music`: the scanner's reader and TagLib's C
    /// API, in alternating order, `rounds` times.
    func fileReads(_ music: URL, count: Int, rounds: Int) -> (LatencySamples, LatencySamples) {
        let paths = (FileManager.default.enumerator(atPath: music.path)?.compactMap { $0 as? String } ?? [])
            .filter { $0.hasSuffix(".mp3") || $0.hasSuffix(".ogg") }.sorted().prefix(count)
            .map { music.appendingPathComponent($0).path }
        var ours = LatencySamples(), bare = LatencySamples()
        let clock = ContinuousClock()
        taglib_set_strings_unicode(1)
        for round in 0..<max(1, rounds) {
            for path in paths {
                for turn in 0..<2 {
                    if (round + turn) % 2 == 0 {
                        let started = clock.now
                        if let read = TagLibReader.readWithArtwork(path: path), let found = read.tags.chapters {
                            _ = ContentChapter.validated(found, duration: read.tags.duration)
                        }
                        ours.append(clock.now - started)
                    } else {
                        let started = clock.now
                        if let file = taglib_file_new(path) {
                            _ = taglib_file_tag(file)
                            _ = taglib_file_audioproperties(file)
                            taglib_tag_free_strings()
                            taglib_file_free(file)
                        }
                        bare.append(clock.now - started)
                    }
                }
            }
        }
        return (ours, bare)
    }

    /// Two seed books encoded once (an MP3 and an Ogg of `chapters` tones, 0.1 s each: the same audio in both
    /// libraries, with the chapters marked or not), copied and retagged into author/book folders.
    func generate(into music: URL, withChapters: Bool) async throws {
        let marker = music.appendingPathComponent(".complete")
        if FileManager.default.fileExists(atPath: marker.path) { return }
        try? FileManager.default.removeItem(at: music)
        let seeds = music.appendingPathComponent(".seeds")
        let parts = (0..<max(1, chapters)).map { ToneChapter("Chapter \($0 + 1)", frequency: 300 + 40 * $0, seconds: 0.1) }
        for format in ["mp3", "ogg"] {
            try await AudioFixtures.writeChapteredBook(parts, named: "seed.\(format)", marks: withChapters ? nil : [], in: seeds)
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
