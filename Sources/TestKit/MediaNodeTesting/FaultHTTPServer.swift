import Foundation

/// The fault-injecting HTTP server (Tests/Fixtures/fault_http_server.py) in a child process, driven over
/// its standard input: serve a resource, make the next requests stall, reset, fail, truncate or drip.
public final class FaultHTTPServer: @unchecked Sendable {
    public enum Fault: Sendable {
        /// Accept the connection and say nothing for `seconds`.
        case stall(seconds: Double)
        /// Close the connection with a TCP reset before answering.
        case reset
        case status(Int)
        /// Declare the full Content-Length, send half the body, close.
        case truncate
        /// Send the body `chunk` bytes at a time, `seconds` apart.
        case drip(seconds: Double, chunk: Int)
        case redirect(to: String)
        /// 200 with no Content-Length, then `chunk` (an RSS item when nil) again and again until the client goes.
        case endless(chunk: String?)
        /// Declare this Content-Length, then send RSS items again and again until the client goes.
        case contentLength(Int)

        var json: [String: Any] {
            switch self {
            case let .stall(seconds): ["kind": "stall", "seconds": seconds]
            case .reset: ["kind": "reset"]
            case let .status(code): ["kind": "status", "code": code]
            case .truncate: ["kind": "truncate"]
            case let .drip(seconds, chunk): ["kind": "drip", "seconds": seconds, "chunk": chunk]
            case let .redirect(path): ["kind": "redirect", "to": path]
            case let .endless(chunk): ["kind": "endless", "chunk": chunk ?? ""]
            case let .contentLength(bytes): ["kind": "length", "bytes": bytes]
            }
        }
    }

    /// One request the server saw.
    public struct LoggedRequest: Sendable {
        public var path: String
        public var headers: [String: String]
        /// The status answered; 0 when the fault answered nothing.
        public var status: Int
    }

    public var port: Int { child.port }
    private let child: FixtureServerProcess

    public init() async throws {
        child = try await FixtureServerProcess(script: Self.scriptPath)
    }

    public func url(_ path: String) -> URL { URL(string: "http://127.0.0.1:\(port)\(path)")! }

    /// Serves `body` at `path` with the given validators (a 304 answers a request that names them).
    public func put(_ path: String, body: String, etag: String? = nil, lastModified: String? = nil,
                    contentType: String = "application/octet-stream") async {
        var command: [String: Any] = ["op": "put", "path": path, "body": body, "contentType": contentType]
        if let etag { command["etag"] = etag }
        if let lastModified { command["lastModified"] = lastModified }
        _ = await send(command)
    }

    /// Serves `head`, then `item` `count` times with `{n}` replaced by 0, 1, ..., then `tail`: a body built by
    /// the server, too large to pass over the command pipe.
    public func putGenerated(_ path: String, head: String, item: String, count: Int, tail: String,
                             contentType: String = "application/octet-stream") async {
        _ = await send(["op": "put", "path": path, "contentType": contentType,
                  "generate": ["head": head, "item": item, "count": count, "tail": tail]])
    }

    /// Serves binary bytes (artwork) at `path`.
    public func put(_ path: String, data: Data, contentType: String) async {
        _ = await send(["op": "put", "path": path, "bodyBase64": data.base64EncodedString(), "contentType": contentType])
    }

    /// The next `faults.count` requests to `path` misbehave, in order.
    public func inject(_ faults: [Fault], at path: String) async {
        _ = await send(["op": "faults", "path": path, "faults": faults.map(\.json)])
    }

    public func requests() async -> [LoggedRequest] {
        let reply = await send(["op": "log"])
        return (reply["log"] as? [[String: Any]] ?? []).map { entry in
            LoggedRequest(
                path: entry["path"] as? String ?? "", headers: entry["headers"] as? [String: String] ?? [:],
                status: entry["status"] as? Int ?? 0)
        }
    }

    public func stop() { child.stop() }

    private func send(_ command: [String: Any]) async -> [String: Any] { await child.send(command) }

    /// The script beside this package's tests, or `MEDIANODE_FAULT_SERVER`.
    public static var scriptPath: String {
        FixtureServerProcess.scriptPath("fault_http_server.py", environmentKey: "MEDIANODE_FAULT_SERVER")
    }
}
