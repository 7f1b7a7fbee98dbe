import Foundation

/// The media server of seek tests (Tests/Fixtures/range_http_server.py) in a child process: serves files
/// whole or by byte range, as podcast hosts do, and can be made slow to answer the requests a seek sends.
public final class RangeHTTPServer: @unchecked Sendable {
    /// One request the server saw.
    public struct LoggedRequest: Sendable {
        public var path: String
        /// The Range header, if the request had one.
        public var range: String?
        public var status: Int
        /// Seconds the server held the answer back.
        public var waited: Double
    }

    public var port: Int { child.port }
    private let child: FixtureServerProcess

    public init() async throws {
        child = try await FixtureServerProcess(script: Self.scriptPath)
    }

    public func url(_ path: String) -> URL { URL(string: "http://127.0.0.1:\(port)\(path)")! }

    /// Serves the file at `file` on `path`, answering Range requests with 206.
    public func serve(_ path: String, file: URL, contentType: String = "audio/ogg") async {
        _ = await child.send(["op": "file", "path": path, "file": file.path, "contentType": contentType])
    }

    /// Serves a text body (a feed) on `path`.
    public func put(_ path: String, body: String, contentType: String = "application/rss+xml") async {
        _ = await child.send(["op": "put", "path": path, "body": body, "contentType": contentType])
    }

    /// From now on every request to `path` that starts past its first byte waits `seconds` before the
    /// answer begins, as a loaded server does; 0 makes it prompt again.
    public func slowSeeks(on path: String, seconds: Double) async {
        _ = await child.send(["op": "slow", "path": path, "seconds": seconds])
    }

    /// From now on `path`'s bodies go out at about `bytesPerSecond` (0: at full speed), so a client can be
    /// stopped mid-body.
    public func throttle(_ path: String, bytesPerSecond: Int) async {
        _ = await child.send(["op": "throttle", "path": path, "bytesPerSecond": bytesPerSecond])
    }

    public func requests() async -> [LoggedRequest] {
        let reply = await child.send(["op": "log"])
        return (reply["log"] as? [[String: Any]] ?? []).map { entry in
            LoggedRequest(
                path: entry["path"] as? String ?? "", range: entry["range"] as? String,
                status: entry["status"] as? Int ?? 0, waited: entry["waited"] as? Double ?? 0)
        }
    }

    public func stop() { child.stop() }

    /// The script beside this package's tests, or `MEDIANODE_RANGE_SERVER`.
    public static var scriptPath: String {
        FixtureServerProcess.scriptPath("range_http_server.py", environmentKey: "MEDIANODE_RANGE_SERVER")
    }
}
