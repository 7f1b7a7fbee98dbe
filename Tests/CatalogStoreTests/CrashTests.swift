import CatalogStore
import ContentTree
import Foundation
import GRDB
import MediaNodeTesting
import Testing

@Suite("catalog store under damage")
struct CrashTests {
    @Test("a corrupt database is moved aside and rebuilt")
    func corruptFile() async throws {
        let temp = try TemporaryCatalog()
        defer { temp.remove() }
        try Data(repeating: 0x5A, count: 64 * 1024).write(to: URL(fileURLWithPath: temp.path))
        let database = try temp.open()
        // Rebuilt empty: the root holds only the sections every catalog file has.
        #expect(try await database.childCount(of: ContentItem.rootIdentifier) == 2)
        let names = try FileManager.default.contentsOfDirectory(atPath: temp.directory.path)
        #expect(names.contains { $0.hasPrefix("catalog.sqlite.corrupt-") }, "files: \(names)")
        // The rebuilt catalog is usable.
        let source = CatalogSource(kind: .json, location: "test://after-corruption")
        try await database.register(source)
        try await database.replaceContent(of: source.identifier, with: albumSnapshot(source, [("A", ["1"])]))
        #expect(try await database.item(at: [0, 0])?.title == "1")
    }

    @Test("a database with damaged pages fails the integrity check and is rebuilt")
    func damagedPages() async throws {
        let temp = try TemporaryCatalog()
        defer { temp.remove() }
        do {
            let database = try temp.open()
            let source = CatalogSource(kind: .json, location: "test://damage")
            try await database.register(source)
            try await database.replaceContent(
                of: source.identifier, with: SyntheticCatalog.snapshot(source: source, items: 3000))
            try await database.pool.writeWithoutTransaction { db in
                _ = try db.checkpoint(.truncate)
            }
            try database.close()
        }
        // Scribble over the middle of the file, keeping the header valid.
        let handle = try FileHandle(forUpdating: URL(fileURLWithPath: temp.path))
        let size = try handle.seekToEnd()
        try handle.seek(toOffset: size / 2)
        try handle.write(contentsOf: Data(repeating: 0xFF, count: 16 * 4096))
        try handle.close()

        let database = try temp.open()
        #expect(try await database.summary() == CatalogSummary(sources: 0, containers: 0, playables: 0))
        let names = try FileManager.default.contentsOfDirectory(atPath: temp.directory.path)
        #expect(names.contains { $0.hasPrefix("catalog.sqlite.corrupt-") })
    }

    @Test("kill -9 during a refresh leaves the previous complete catalog readable, and its search index")
    func killDuringRefresh() async throws {
        let temp = try TemporaryCatalog("kill")
        defer { temp.remove() }
        let location = "test://kill"
        let source = CatalogSource(kind: .json, location: location)
        let items = 20_000
        do {
            let database = try temp.open()
            try await database.register(source)
            try await database.replaceContent(
                of: source.identifier, with: SyntheticCatalog.snapshot(source: source, items: items, generation: 0))
            try database.close()
        }

        var sawMidTransaction = false
        for round in 1...3 {
            let child = try ChildImporter(database: temp.path, location: location, items: items, generation: round * 10)
            // Wait for the child's first transaction to start, then kill it at a varying moment inside it.
            try await child.waitForLine("writing \(round * 10)")
            try await Task.sleep(for: .milliseconds(50 + 150 * round))
            let committed = child.linesSoFar.contains { $0.hasPrefix("committed") }
            await child.kill()
            if !committed { sawMidTransaction = true }

            let database = try temp.open()
            let albums = try await allChildren(database, of: "\(source.identifier)/albums", pageSize: 500)
            let generations = Set(albums.compactMap { $0.title.split(separator: "g").last.map(String.init) })
            #expect(generations.count == 1, "a reader saw a mix of imports: \(generations)")
            #expect(albums.count == items / 100)
            // The search index was in the same transaction: it holds exactly the import the tables hold.
            for generation in [0, 10, 20, 30] {
                let found = try await database.search("g\(generation)", limit: 1).total
                #expect(found == (generations == ["\(generation)"] ? items + items / 100 : 0), "g\(generation)")
            }
            let summary = try await database.summary()
            #expect(summary.playables == items)
            let quickCheck = try await database.pool.read { db in try String.fetchAll(db, sql: "PRAGMA quick_check") }
            #expect(quickCheck == ["ok"])
            try database.close()
        }
        #expect(sawMidTransaction, "no kill landed inside a transaction; the test proved nothing")
        let names = try FileManager.default.contentsOfDirectory(atPath: temp.directory.path)
        #expect(!names.contains { $0.contains("corrupt") })
    }
}

/// The `catalog-import-child` executable, built next to the test bundle, run as a separate process.
final class ChildImporter: @unchecked Sendable {
    let process = Process()
    private let pipe = Pipe()
    private let lock = NSLock()
    private var lines: [String] = []
    private var buffer = Data()

    init(database: String, location: String, items: Int, generation: Int) throws {
        let executable = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        var directory = executable.deletingLastPathComponent()
        while !FileManager.default.fileExists(atPath: directory.appendingPathComponent("catalog-import-child").path),
            directory.path != "/"
        {
            directory.deleteLastPathComponent()
        }
        process.executableURL = directory.appendingPathComponent("catalog-import-child")
        process.arguments = [database, location, "\(items)", "\(generation)"]
        process.standardOutput = pipe
        pipe.fileHandleForReading.readabilityHandler = { [weak self] handle in
            let data = handle.availableData
            guard let self, !data.isEmpty else { return }
            self.lock.lock()
            self.buffer.append(data)
            while let newline = self.buffer.firstIndex(of: 0x0A) {
                self.lines.append(String(decoding: self.buffer[..<newline], as: UTF8.self))
                self.buffer.removeSubrange(...newline)
            }
            self.lock.unlock()
        }
        try process.run()
    }

    var linesSoFar: [String] {
        lock.lock()
        defer { lock.unlock() }
        return lines
    }

    func waitForLine(_ line: String, timeout: Duration = .seconds(60)) async throws {
        let deadline = ContinuousClock.now + timeout
        while !linesSoFar.contains(line) {
            guard ContinuousClock.now < deadline, process.isRunning else {
                throw CatalogParseError("child never printed \(line); got \(linesSoFar)")
            }
            try await Task.sleep(for: .milliseconds(5))
        }
    }

    /// SIGKILL, and back once the child has ended (the next round opens the file it was writing).
    func kill() async {
        Foundation.kill(process.processIdentifier, SIGKILL)
        await process.exited()
        pipe.fileHandleForReading.readabilityHandler = nil
    }
}
