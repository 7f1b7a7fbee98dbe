import CatalogStore
import Foundation
import MediaJSON
import MediaNodeTesting
import Testing

/// An operator who points --database at a file the node cannot write must hear so at once, in one line
/// that names the file and says what to do, not a cryptic SQLite error minutes later at the first save.
@Suite("A catalog file that cannot be written, or is not a database", .serialized)
struct CatalogFileAccessTests {
    enum Damage: String, CaseIterable, CustomTestStringConvertible {
        case readOnlyMount = "its folder on a read-only mount"
        case immutableFile = "the file immutable (chattr +i)"
        case immutableFolder = "its folder immutable (chattr +i)"
        var testDescription: String { rawValue }
    }

    @Test("the node refuses to start with one line naming the file and what to do", .enabled(if: ScratchMount.isAvailable, "\(ScratchMount.unavailableReason)"), arguments: Damage.allCases)
    func unwritableCatalogIsRefusedClearly(_ damage: Damage) async throws {
        let mount = try ScratchMount(bytes: 4 << 20)
        defer { mount.unmount() }
        let folder = mount.directory.appendingPathComponent("state")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let path = folder.appendingPathComponent("catalog.sqlite").path
        try CatalogDatabase(path: path).close()
        switch damage {
        case .readOnlyMount: try await mount.remountReadOnly()
        case .immutableFile: try ScratchMount.setImmutable(path, true)
        case .immutableFolder: try ScratchMount.setImmutable(folder.path, true)
        }
        defer {
            try? ScratchMount.setImmutable(path, false)
            try? ScratchMount.setImmutable(folder.path, false)
        }

        let broker = try await MosquittoBroker()
        defer { broker.stop() }
        let node = try NodeProcess(arguments: ["--broker", broker.url, "--node-id", "access", "--audio-sink", "fake",
                                               "--database", path])
        let status = await node.waitForExit(timeout: .seconds(30))
        #expect(status != nil && status != 0, "the node went on with a catalog it cannot write; log: \(node.log)")
        let lines = node.log.split(separator: "\n").filter { $0.contains(path) }
        #expect(lines.count == 1, "log: \(node.log)")
        #expect(lines.first?.contains("cannot use the catalog database") == true, "log: \(node.log)")
        #expect(lines.first?.contains("--database") == true, "it says what to do; log: \(node.log)")
    }

    @Test("catalog scan and import refuse it the same way, in one line, before scanning or fetching anything", .enabled(if: ScratchMount.isAvailable, "\(ScratchMount.unavailableReason)"), arguments: Damage.allCases)
    func catalogCommandsRefuseClearly(_ damage: Damage) async throws {
        let mount = try ScratchMount(bytes: 4 << 20)
        defer { mount.unmount() }
        let folder = mount.directory.appendingPathComponent("state")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let path = folder.appendingPathComponent("catalog.sqlite").path
        try CatalogDatabase(path: path).close()
        let music = try AudioFixtures.makeTemporaryDirectory("unwritable-scan")
        defer { try? FileManager.default.removeItem(at: music) }
        let feed = music.appendingPathComponent("feed.json")
        try #"{"version":1,"title":"Feed","children":[{"id":"a","title":"A","url":"https://cdn.example.net/a.mp3"}]}"#
            .write(to: feed, atomically: true, encoding: .utf8)
        switch damage {
        case .readOnlyMount: try await mount.remountReadOnly()
        case .immutableFile: try ScratchMount.setImmutable(path, true)
        case .immutableFolder: try ScratchMount.setImmutable(folder.path, true)
        }
        defer {
            try? ScratchMount.setImmutable(path, false)
            try? ScratchMount.setImmutable(folder.path, false)
        }
        for arguments in [["scan", music.path], ["import", feed.path]] {
            let (status, output) = try await ToolRun.capture(NodeProcess.binaryPath, ["catalog"] + arguments + ["--database", path])
            let lines = output.split(separator: "\n")
            #expect(status != 0, "\(arguments[0]) went on: \(output)")
            #expect(lines.count == 1 && lines[0].contains("cannot use the catalog database \(path)")
                    && lines[0].contains("--database"), "\(arguments[0]): \(output)")
        }
    }

    @Test("a file that is not a database is moved aside, said once with its name, and the node comes up")
    func notADatabaseRecovers() async throws {
        let directory = try AudioFixtures.makeTemporaryDirectory("not-a-database")
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("catalog.sqlite").path
        try String(repeating: "this is a shopping list, not a catalog\n", count: 200)
            .write(toFile: path, atomically: true, encoding: .utf8)

        let broker = try await MosquittoBroker()
        defer { broker.stop() }
        let watcher = try TestMQTTClient(brokerURL: broker.url)
        try await watcher.connect()
        try await watcher.subscribeAndSettle("medianode/access/#")
        let node = try NodeProcess(arguments: ["--broker", broker.url, "--node-id", "access", "--audio-sink", "fake",
                                               "--database", path])
        defer { node.signal(SIGKILL) }
        let root = try await watcher.first(timeout: .seconds(30)) { $0.topic == "medianode/access/content/tree" }
        #expect(try JSONValue(parsing: root.payload)["childCount"] != nil)
        let lines = node.log.split(separator: "\n").filter { $0.contains(path) }
        #expect(lines.count == 1 && lines[0].contains("moved aside"), "log: \(node.log)")
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        #expect(names.contains { $0.hasPrefix("catalog.sqlite.corrupt-") }, "\(names)")
        let check = try await ToolRun.capture("sqlite3", [path, "pragma integrity_check"])
        #expect(check.output.trimmingCharacters(in: .whitespacesAndNewlines) == "ok", "\(check.output)")
        await watcher.disconnect()
    }
}
