import Foundation
import HTTPTransfer
import MediaNodeTesting
import Synchronization
import Testing

/// The libcurl transfer client against real local servers: what a download manager relies on (files,
/// resume, progress, cancellation) and what keeps a hostile server cheap (the cap, the timeouts).
@Suite("HTTP transfers: caps, timeouts, files, resume, progress and cancellation")
struct HTTPTransferTests {
    let client = HTTPTransferClient()

    /// Bytes that differ at every offset, so a wrong resume point shows in the content.
    static func pattern(_ count: Int) -> Data { Data((0..<count).map { UInt8(truncatingIfNeeded: $0 * 7 + $0 / 251) }) }

    @Test("an endless body is refused at the cap, promptly, having read no more than the cap")
    func endlessBodyStopsAtTheCap() async throws {
        let server = try await FaultHTTPServer()
        defer { server.stop() }
        await server.inject([.endless(chunk: nil)], at: "/endless.xml")
        let cap: Int64 = 4 << 20
        let started = ContinuousClock.now
        do {
            _ = try await client.data(HTTPTransferRequest(url: server.url("/endless.xml"), maxBodyBytes: cap))
            Issue.record("an endless body was accepted")
        } catch let HTTPTransferError.bodyTooLarge(size) {
            // Refused at the chunk that crossed the cap: libcurl hands over at most its 16 KiB buffer at once.
            #expect(size > cap && size <= cap + 64 << 10, "refused at \(size) bytes")
        }
        #expect(ContinuousClock.now - started < .seconds(5))
    }

    @Test("a Content-Length past the cap is refused at the headers, before any body byte is taken")
    func declaredLengthRefusedAtOnce() async throws {
        let server = try await FaultHTTPServer()
        defer { server.stop() }
        await server.inject([.contentLength(2_000_000_000)], at: "/huge.xml")
        let started = ContinuousClock.now
        await #expect(throws: HTTPTransferError.bodyTooLarge(2_000_000_000)) {
            _ = try await client.data(HTTPTransferRequest(url: server.url("/huge.xml"), maxBodyBytes: 64 << 20))
        }
        // Reading the announced body would take minutes; the bound leaves room for a loaded machine.
        #expect(ContinuousClock.now - started < .seconds(10))
    }

    @Test("a server that answers nothing times out at the connect limit; one that stops mid-body at the idle limit")
    func stallsTimeOut() async throws {
        let server = try await FaultHTTPServer()
        defer { server.stop() }
        await server.put("/feed.xml", body: String(repeating: "x", count: 4000))
        await server.inject([.stall(seconds: 10), .drip(seconds: 3, chunk: 100)], at: "/feed.xml")
        for phase in ["headers", "body"] {
            let started = ContinuousClock.now
            await #expect(throws: HTTPTransferError.timedOut, "\(phase)") {
                _ = try await client.data(HTTPTransferRequest(
                    url: server.url("/feed.xml"), connectTimeout: .milliseconds(500), idleTimeout: .milliseconds(500)))
            }
            let elapsed = ContinuousClock.now - started
            // Without the limits the stall lasts 10 s and the drip 2 minutes; the bound allows for a loaded machine.
            #expect(elapsed >= .milliseconds(450) && elapsed < .seconds(8), "\(phase) took \(elapsed)")
        }
    }

    @Test("cancelling the calling task ends a stalled transfer at once")
    func cancellationIsPrompt() async throws {
        let server = try await FaultHTTPServer()
        defer { server.stop() }
        await server.inject([.stall(seconds: 10)], at: "/stall.xml")
        let task = Task { try await client.data(HTTPTransferRequest(url: server.url("/stall.xml"), connectTimeout: .seconds(30))) }
        try await Task.sleep(for: .milliseconds(300))
        let started = ContinuousClock.now
        task.cancel()
        await #expect(throws: CancellationError.self) { _ = try await task.value }
        // The stall would last 10 s and the connect limit 30 s.
        #expect(ContinuousClock.now - started < .seconds(5))
    }

    @Test("a download streams into a file, resumes with a Range request from what the file holds, and reports progress")
    func downloadResumes() async throws {
        let directory = try AudioFixtures.makeTemporaryDirectory("transfer-resume")
        defer { try? FileManager.default.removeItem(at: directory) }
        let whole = Self.pattern(3 << 20)
        let source = directory.appendingPathComponent("source.bin")
        try whole.write(to: source)
        let server = try await RangeHTTPServer()
        defer { server.stop() }
        await server.serve("/episode.mp3", file: source, contentType: "audio/mpeg")

        // A download cut after its first megabyte, as a dropped connection leaves it.
        let target = directory.appendingPathComponent("episode.mp3")
        try whole.prefix(1 << 20).write(to: target)
        let reports = Mutex<[HTTPTransferProgress]>([])
        let result = try await client.download(HTTPTransferRequest(url: server.url("/episode.mp3")), to: target) { progress in
            reports.withLock { $0.append(progress) }
        }
        #expect(result.head.status == 206 && result.offset == 1 << 20 && !result.rangeIgnored)
        #expect(result.received == Int64(whole.count - (1 << 20)))
        #expect(try Data(contentsOf: target) == whole)
        await #expect(server.requests().last?.range == "bytes=1048576-")
        let last = try #require(reports.withLock { $0.last })
        #expect(last.received == result.received && last.offset == 1 << 20 && last.expectedTotal == Int64(whole.count))

        // Once complete, a resume asks past the end and the file is left as it is.
        let again = try await client.download(HTTPTransferRequest(url: server.url("/episode.mp3")), to: target)
        #expect(again.head.status == 416)
        #expect(try Data(contentsOf: target) == whole)
    }

    @Test("a server that ignores the Range request is detected and the file is rewritten whole, not appended to")
    func ignoredRangeRestarts() async throws {
        let directory = try AudioFixtures.makeTemporaryDirectory("transfer-norange")
        defer { try? FileManager.default.removeItem(at: directory) }
        let whole = Self.pattern(200_000)
        let server = try await FaultHTTPServer()
        defer { server.stop() }
        await server.put("/episode.mp3", data: whole, contentType: "audio/mpeg")
        let target = directory.appendingPathComponent("episode.mp3")
        try whole.prefix(50_000).write(to: target)
        let result = try await client.download(HTTPTransferRequest(url: server.url("/episode.mp3")), to: target)
        #expect(result.head.status == 200 && result.rangeIgnored && result.offset == 0)
        await #expect(server.requests().last?.headers["Range"] == "bytes=50000-")
        #expect(try Data(contentsOf: target) == whole)
    }

    @Test("redirects are followed, and the user agent and request headers reach the server")
    func redirectsAndHeaders() async throws {
        let server = try await FaultHTTPServer()
        defer { server.stop() }
        await server.put("/feed.xml", body: "hello")
        await server.inject([.redirect(to: "/feed.xml")], at: "/old.xml")
        let (result, body) = try await client.data(HTTPTransferRequest(
            url: server.url("/old.xml"), headers: ["If-None-Match": "\"x\""], userAgent: "MediaNode/test"))
        #expect(result.head.status == 200 && body == Data("hello".utf8))
        #expect(result.head.url == server.url("/feed.xml"))
        let last = try await #require(server.requests().last)
        #expect(last.path == "/feed.xml" && last.headers["User-Agent"] == "MediaNode/test" && last.headers["If-None-Match"] == "\"x\"")
    }
}
