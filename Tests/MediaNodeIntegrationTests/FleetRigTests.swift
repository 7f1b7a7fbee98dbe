import Foundation
import MediaJSON
import MediaNodeTesting
import Testing

/// `medianode-rig` as a fleet tester runs it: the real binary, real nodes, a real broker, its JSON report.
@Suite("The fleet rig drives many nodes through real brokers", .serialized)
struct FleetRigTests {
    /// The built `medianode-rig`, beside `medianode`.
    static var rigPath: String {
        URL(fileURLWithPath: NodeProcess.binaryPath).deletingLastPathComponent().appendingPathComponent("medianode-rig").path
    }

    static func report(at path: URL) throws -> JSONValue {
        try JSONValue(parsing: Array(try Data(contentsOf: path)))
    }

    /// A folder of its own for a run's report; the caller removes it.
    static func scratchDirectory() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("rig-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    @Test("20 nodes for 5 s through mosquitto: all online, every command answered, no retained state wrong")
    func smallRigOnMosquitto() async throws {
        let broker = try await MosquittoBroker()
        defer { broker.stop() }
        let directory = try Self.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let json = directory.appendingPathComponent("report.json")
        let (status, output) = try await ToolRun.capture(
            Self.rigPath, ["--broker", broker.url, "--nodes", "20", "--duration", "5", "--prefix", "fleet", "--json", json.path])
        #expect(status == 0, "\(output)")
        let report = try Self.report(at: json)
        #expect(report["nodes"] == 20 && report["online"] == 20, "\(report.jsonString)")
        let sent = try #require(report["sent"]?.numberValue)
        // One command a second to each of 20 nodes for 5 s.
        #expect(sent >= 80 && sent <= 120, "\(report.jsonString)")
        #expect(report["answered"]?.numberValue == sent && report["lost"] == 0 && report["wrongState"] == 0,
                "\(report.jsonString)\n\(output)")
        let p50 = try #require(report["replyMs"]?["p50"]?.numberValue)
        let maximum = try #require(report["replyMs"]?["max"]?.numberValue)
        #expect(p50 > 0 && maximum >= p50 && maximum < 5000, "\(report.jsonString)")
        // The generator's own lag is reported beside the latency, and decides whether those figures are valid
        // (not asserted valid here: the machine running the suite may be busy).
        let lag = try #require(report["generatorLagMs"]?["p99"]?.numberValue, "\(report.jsonString)")
        #expect(lag >= 0 && report["valid"] == .bool(lag <= 10), "\(report.jsonString)")
        #expect(output.contains("lag ms"), "\(output)")
        #expect((report["rssMiB"]?.numberValue ?? 0) > 0 && (report["cpuSeconds"]?.numberValue ?? 0) > 0)
        #expect(output.contains("PASS"), "\(output)")

        // What the nodes left on the broker: each its own tree under the prefix, and `offline` once the rig stopped.
        let watcher = try TestMQTTClient(brokerURL: broker.url)
        try await watcher.connect()
        try await watcher.subscribeAndSettle("fleet/+/status")
        let statuses = await watcher.received.filter { $0.topic.hasSuffix("/status") }
        #expect(Set(statuses.map(\.topic)).count == 20, "\(statuses.map(\.topic))")
        #expect(statuses.allSatisfy { $0.payload.elementsEqual("offline".utf8) })
        #expect(statuses.allSatisfy { $0.topic.wholeMatch(of: /fleet\/node-\d{4}\/status/) != nil }, "\(statuses.map(\.topic))")
        await watcher.disconnect()
    }

    @Test("--catalogs memory: every node's catalog in memory, no file open for it; the warm-up's replies left out of the figures")
    func catalogsInMemory() async throws {
        let broker = try await MosquittoBroker()
        defer { broker.stop() }
        let directory = try Self.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        func run(_ catalogs: String) async throws -> JSONValue {
            let json = directory.appendingPathComponent("\(catalogs).json")
            let (status, output) = try await ToolRun.capture(
                Self.rigPath, ["--broker", broker.url, "--nodes", "20", "--duration", "4", "--warmup", "2",
                               "--prefix", "fleet-\(catalogs)", "--catalogs", catalogs, "--json", json.path])
            #expect(status == 0, "\(output)")
            let report = try Self.report(at: json)
            #expect(report["online"] == 20 && report["lost"] == 0 && report["wrongState"] == 0, "\(report.jsonString)\n\(output)")
            #expect(report["catalogs"] == .string(catalogs), "\(report.jsonString)")
            return report
        }
        let memory = try await run("memory"), file = try await run("file")
        // A node's MQTT socket is its only descriptor in memory; a file each costs a dozen.
        let inMemory = try #require(memory["descriptors"]?.numberValue), onFiles = try #require(file["descriptors"]?.numberValue)
        #expect(inMemory < 20 * 2 + 40, "\(memory.jsonString)")
        #expect(onFiles > 20 * 6, "\(file.jsonString)")
        // Every command is answered and checked, but only the replies after the warm-up are timed: about
        // half of them, one a second to each node.
        let answered = try #require(memory["answered"]?.numberValue)
        let timed = try #require(memory["replyMs"]?["count"]?.numberValue)
        #expect(answered >= 60 && timed > 0.3 * answered && timed < 0.7 * answered, "\(memory.jsonString)")
        // Where the heap goes: the catalogs in memory hold all their pages (20 nodes of about 100 KiB), on
        // files only what their writing connections read.
        let heap = try #require(memory["heapMiB"]), fileHeap = try #require(file["heapMiB"])
        let pages = try #require(heap["catalogPages"]?.numberValue), sqlite = try #require(heap["sqlite"]?.numberValue)
        let allocated = try #require(heap["allocated"]?.numberValue)
        #expect(pages > 20 * 0.05 && pages < sqlite && sqlite < allocated, "\(heap.jsonString)")
        #expect((heap["compiledStatements"]?.numberValue ?? 0) > 0, "\(heap.jsonString)")
        #expect((fileHeap["catalogPages"]?.numberValue ?? .infinity) < pages, "\(fileHeap.jsonString) \(heap.jsonString)")
    }

    @Test("with --metrics-interval every node reports, none is stale, and the report sums the fleet's counters")
    func fleetHealthInTheReport() async throws {
        let broker = try await MosquittoBroker()
        defer { broker.stop() }
        let directory = try Self.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let json = directory.appendingPathComponent("report.json")
        let (status, output) = try await ToolRun.capture(Self.rigPath, [
            "--broker", broker.url, "--nodes", "10", "--duration", "4", "--prefix", "healthy", "--metrics-interval", "1",
            "--json", json.path,
        ])
        #expect(status == 0, "\(output)")
        let report = try Self.report(at: json)
        let metrics = try #require(report["metrics"], "\(report.jsonString)")
        #expect(metrics["reporting"] == 10 && metrics["stale"] == 0 && metrics["staleNodes"] == [], "\(metrics.jsonString)")
        #expect((metrics["oldestMetricsSeconds"]?.numberValue ?? 99) < 3, "\(metrics.jsonString)")
        let fleet = try #require(metrics["fleet"])
        // Each node's last report is up to an interval old: at most what the rig saw answered, and most of it.
        let success = fleet["commands"]?["success"]?.numberValue ?? 0
        let answered = report["answered"]?.numberValue ?? 0
        #expect(success > answered / 2 && success <= answered, "\(metrics.jsonString) answered \(answered)")
        #expect(fleet["broker"]?["connects"] == 10 && fleet["broker"]?["failovers"] == 0, "\(metrics.jsonString)")
        #expect(fleet["catalog"]?["playables"]?.numberValue ?? 0 > 0, "\(metrics.jsonString)")
        #expect(output.contains("10 nodes reporting, 0 stale"), "\(output)")
    }

    @Test("bad flags are refused with a message, before any node starts")
    func badFlags() async throws {
        let (status, output) = try await ToolRun.capture(Self.rigPath, ["--nodes", "0"])
        #expect(status != 0 && output.contains("--nodes"), "\(output)")
        let (badPrefix, prefixOutput) = try await ToolRun.capture(Self.rigPath, ["--prefix", "rig/#"])
        #expect(badPrefix != 0 && prefixOutput.contains("--prefix"), "\(prefixOutput)")
        let (badCatalogs, catalogsOutput) = try await ToolRun.capture(Self.rigPath, ["--catalogs", "disk"])
        #expect(badCatalogs != 0 && catalogsOutput.contains("--catalogs must be file, memory or auto"), "\(catalogsOutput)")
        let (badWarmup, warmupOutput) = try await ToolRun.capture(Self.rigPath, ["--duration", "5", "--warmup", "5"])
        #expect(badWarmup != 0 && warmupOutput.contains("--warmup"), "\(warmupOutput)")
    }
}
