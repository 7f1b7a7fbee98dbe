import Foundation
import MediaNodeTesting
import Testing

extension SoundServerTests {
    /// `medianode-bench sound-server`, run as someone measuring the node on a sound server reads it.
    @Suite("The sound server bench")
    struct BenchTests {
        @Test("sound-server prints the call's hold and return and the restart's, each beside its bare-playbin floor, and the music lost or repeated")
        func soundServerBench() async throws {
            // Two rounds: on a loaded machine a sink's dropout can hide where one round's music stopped.
            let output = try await BenchCommandTests.run(["sound-server", "--rounds", "2"])
            let rows = output.split(separator: "\n").filter { $0.contains("n=") && $0.contains("p50") }
            #expect(rows.count == 8 && rows[0].contains("medianode") && rows[1].contains("floor"), "\(output)")
            for row in rows {
                let fields = row.split(separator: " ")
                let count = fields.firstIndex(of: "n=").flatMap { Int(fields[$0 + 1]) }
                let p50 = fields.firstIndex(of: "p50").flatMap { Double(fields[$0 + 1]) }
                // Times are read from the recording in 20 ms windows: a floor that applies an uncork at once can
                // come out a few milliseconds early, never a window's width.
                #expect(count.map { (1...2).contains($0) } == true && (p50 ?? -.infinity) > -20_000, "\(row)")
            }
            // "... medianode +0.020, +0.000; floor +0.040, ...": the node's music goes on from where it stopped.
            let skips = output.split(separator: "\n").filter { $0.contains("lost (+) or repeated (-)") }
            #expect(skips.count == 2, "\(output)")
            for line in skips {
                let node = (line.components(separatedBy: "medianode ").last?.split(separator: ";").first ?? "")
                    .split(separator: ",").compactMap { Double($0.trimmingCharacters(in: .whitespaces)) }
                #expect(!node.isEmpty && node.allSatisfy { abs($0) < 2 }, "\(line)")
            }
            #expect(output.contains("load average at the end") && !output.contains("nan") && !output.contains("inf"), "\(output)")
        }
    }
}
