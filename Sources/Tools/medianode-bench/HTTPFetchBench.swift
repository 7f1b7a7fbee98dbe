import ArgumentParser
import Foundation
import HTTPTransfer
import MediaNodeFixtures

/// One large catalog-sized body fetched from a local HTTP server through the node's transfer client (into
/// memory, capped, as a catalog refresh does) beside the `curl` tool fetching the same file to /dev/null
/// (the floor, timed by curl itself so its process start is not counted), interleaved in blocks.
struct HTTPFetchBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "http-fetch", abstract: "A body fetched by the transfer client beside curl fetching the same file.")

    @Option(help: "Fetches of each kind.") var repetitions = 30
    @Option(help: "Size of the file, in MiB.") var megabytes = 20

    func run() async throws {
        let directory = try AudioFixtures.makeTemporaryDirectory("http-fetch-bench")
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("body.bin")
        let size = megabytes << 20
        try Data((0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 12) }).write(to: file)
        let server = try await RangeHTTPServer()
        defer { server.stop() }
        await server.serve("/body.bin", file: file, contentType: "application/octet-stream")
        let url = server.url("/body.bin")
        let client = HTTPTransferClient()
        let request = HTTPTransferRequest(url: url, maxBodyBytes: Int64(size))

        var subject = LatencySamples(), floor = LatencySamples()
        for round in 0...(repetitions / 5) {
            var subjectBlock = LatencySamples(), floorBlock = LatencySamples()
            for _ in 0..<5 {
                let start = ContinuousClock.now
                let (result, body) = try await client.data(request)
                subjectBlock.append(ContinuousClock.now - start)
                guard result.head.status == 200, body.count == size else {
                    throw ValidationError("the transfer client got \(result.head.status), \(body.count) bytes")
                }
            }
            for _ in 0..<5 {
                let (status, output) = try await ToolRun.capture("curl", ["-s", "-o", "/dev/null", "-w", "%{time_total} %{size_download}", url.absoluteString])
                let fields = output.split(separator: " ")
                guard status == 0, fields.count == 2, let seconds = Double(fields[0]), Int(fields[1]) == size else {
                    throw ValidationError("curl failed: \(output)")
                }
                floorBlock.append(.microseconds(Int64(seconds * 1e6)))
            }
            if round == 0 { continue }  // warm-up
            subject.values += subjectBlock.values
            floor.values += floorBlock.values
        }
        report("http fetch of \(megabytes) MiB from a local server (Python's http.server), \(subject.values.count) of each:",
               subject: ("medianode: HTTPTransferClient.data (capped buffer)", subject),
               floor: ("floor: curl -o /dev/null (its own time_total)", floor))
    }
}
