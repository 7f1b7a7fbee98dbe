import Foundation
import MediaNodeTesting
import Testing

/// The bench's figures, as someone tuning the node reads them: a line must be able to move.
@Suite("Bench commands print figures that measure something", .serialized)
struct BenchCommandTests {
    /// The built `medianode-bench`, beside `medianode`.
    static var benchPath: String {
        URL(fileURLWithPath: NodeProcess.binaryPath).deletingLastPathComponent().appendingPathComponent("medianode-bench").path
    }

    static func run(_ arguments: [String]) async throws -> String {
        let (status, output) = try await ToolRun.capture(benchPath, arguments)
        guard status == 0 else { throw RigSetupError("medianode-bench \(arguments.joined(separator: " ")) exited \(status): \(output)") }
        return output
    }

    @Test("command-effect prints no figure that is always 0 and no ratio that is nan")
    func commandEffectFiguresMove() async throws {
        let output = try await Self.run(["command-effect", "--repetitions", "3", "--format", "wav"])
        let ratios = output.split(separator: "\n").filter { $0.contains("ratio") }
        #expect(!ratios.isEmpty, "\(output)")
        #expect(ratios.allSatisfy { !$0.contains("nan") && !$0.contains("inf") }, "\(ratios)")
        #expect(!output.contains("last buffer rendered after publish"), "\(output)")
        // Every effect that is printed was seen in every cycle, and took time.
        for line in output.split(separator: "\n") where line.contains("n=") && line.contains("p50") {
            let fields = line.split(separator: " ")
            let p50 = fields.firstIndex(of: "p50").flatMap { Double(fields[$0 + 1]) }
            #expect((p50 ?? 0) > 0, "a figure of 0: \(line)")
        }
    }

    @Test("download prints the download manager and curl downloading the same file, their ratio and the CPU time per MiB")
    func download() async throws {
        let output = try await Self.run(["download", "--repetitions", "5", "--megabytes", "2"])
        let rows = output.split(separator: "\n").filter { $0.contains("n=") && $0.contains("p50") }
        #expect(rows.count == 2 && rows[0].contains("DownloadManager") && rows[1].contains("curl"), "\(output)")
        for row in rows {
            let fields = row.split(separator: " ")
            let p50 = fields.firstIndex(of: "p50").flatMap { Double(fields[$0 + 1]) }
            #expect((p50 ?? 0) > 0, "\(row)")
        }
        #expect(output.contains("ratio") && output.contains("per downloaded MiB") && !output.contains("nan"), "\(output)")
    }

    @Test("http-fetch prints the transfer client and curl fetching the same file, each taking time, and their ratio")
    func httpFetch() async throws {
        let output = try await Self.run(["http-fetch", "--repetitions", "5", "--megabytes", "2"])
        let rows = output.split(separator: "\n").filter { $0.contains("n=") && $0.contains("p50") }
        #expect(rows.count == 2 && rows[0].contains("HTTPTransferClient") && rows[1].contains("curl"), "\(output)")
        for row in rows {
            let fields = row.split(separator: " ")
            let p50 = fields.firstIndex(of: "p50").flatMap { Double(fields[$0 + 1]) }
            #expect((p50 ?? 0) > 0, "\(row)")
        }
        #expect(output.contains("ratio") && !output.contains("nan") && !output.contains("inf"), "\(output)")
    }

    @Test("announce prints the clip heard and the music back, each beside its bare-playbin floor, every round measured")
    func announce() async throws {
        let output = try await Self.run(["announce", "--rounds", "3"])
        let rows = output.split(separator: "\n").filter { $0.contains("n=") && $0.contains("p50") }
        #expect(rows.count == 6 && rows[0].contains("medianode") && rows[1].contains("floor") && rows[5].contains("floor"), "\(output)")
        for row in rows {
            let fields = row.split(separator: " ")
            let count = fields.firstIndex(of: "n=").flatMap { Int(fields[$0 + 1]) }
            let p50 = fields.firstIndex(of: "p50").flatMap { Double(fields[$0 + 1]) }
            #expect(count == 3 && (p50 ?? 0) > 0, "\(row)")
        }
        #expect(output.contains("rounds not measured: 0 and 0") && !output.contains("nan") && !output.contains("inf"), "\(output)")
    }

    @Test("tree-traffic prints the content tree's messages and bytes per minute for music and podcast; music's is 0")
    func treeTraffic() async throws {
        let output = try await Self.run(["tree-traffic", "--seconds", "4", "--progress-interval", "0.5", "--episodes", "5"])
        let lines = output.split(separator: "\n").map(String.init)
        let music = try #require(lines.first { $0.contains("music (album track)") }, "\(output)")
        #expect(lines.contains { $0.contains("podcast (episode)") && $0.contains("messages/min") }, "\(output)")
        #expect(music.contains(" 0.0 messages/min,") && music.contains(" 0 bytes/min"), "\(output)")
    }

    @Test("catalog-import samples child pages at every depth, through the store and by hand, each taking time")
    func catalogImport() async throws {
        let output = try await Self.run(["catalog-import", "--items", "2000", "--pages", "50"])
        let lines = output.split(separator: "\n").map(String.init)
        #expect(lines.contains { $0.hasPrefix("catalog import: 2000 items") }, "\(output)")
        // The root (the catalog's top container, Recently Played and Favorites), the top container, its albums
        // of 100 tracks.
        for (depth, largest) in [(0, 3), (1, 20), (2, 100)] {
            #expect(lines.contains { $0.contains("depth \(depth) (") && $0.contains("up to \(largest) children") }, "\(output)")
        }
        let all = try #require(lines.firstIndex(of: "child page, all depths"), "\(output)")
        for row in lines[(all + 1)...(all + 2)] {
            let fields = row.split(separator: " ")
            let count = fields.firstIndex(of: "n=").flatMap { Int(fields[$0 + 1]) }
            let p50 = fields.firstIndex(of: "p50").flatMap { Double(fields[$0 + 1]) }
            #expect(count == 50 && (p50 ?? 0) > 0, "\(row)")
        }
    }
}
