import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

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

        var json: [String: Any] {
            switch self {
            case let .stall(seconds): ["kind": "stall", "seconds": seconds]
            case .reset: ["kind": "reset"]
            case let .status(code): ["kind": "status", "code": code]
            case .truncate: ["kind": "truncate"]
            case let .drip(seconds, chunk): ["kind": "drip", "seconds": seconds, "chunk": chunk]
            case let .redirect(path): ["kind": "redirect", "to": path]
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

    public let port: Int
    private let process: Process
    private let input: FileHandle
    private let output: FileHandle
    private let lock = Mutex(())

    public init() throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", Self.scriptPath]
        let stdin = Pipe(), stdout = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        try process.run()
        self.process = process
        self.input = stdin.fileHandleForWriting
        self.output = stdout.fileHandleForReading
        let first = Self.readLine(output)
        guard first.hasPrefix("PORT "), let port = Int(first.dropFirst(5)) else {
            process.terminate()
            throw AudioFixtureError.toolFailed(command: "fault_http_server.py", status: -1, output: first)
        }
        self.port = port
    }

    deinit { stop() }

    public func url(_ path: String) -> URL { URL(string: "http://127.0.0.1:\(port)\(path)")! }

    /// Serves `body` at `path` with the given validators (a 304 answers a request that names them).
    public func put(_ path: String, body: String, etag: String? = nil, lastModified: String? = nil,
                    contentType: String = "application/octet-stream") {
        var command: [String: Any] = ["op": "put", "path": path, "body": body, "contentType": contentType]
        if let etag { command["etag"] = etag }
        if let lastModified { command["lastModified"] = lastModified }
        _ = send(command)
    }

    /// Serves binary bytes (artwork) at `path`.
    public func put(_ path: String, data: Data, contentType: String) {
        _ = send(["op": "put", "path": path, "bodyBase64": data.base64EncodedString(), "contentType": contentType])
    }

    /// The next `faults.count` requests to `path` misbehave, in order.
    public func inject(_ faults: [Fault], at path: String) {
        _ = send(["op": "faults", "path": path, "faults": faults.map(\.json)])
    }

    public func requests() -> [LoggedRequest] {
        let reply = send(["op": "log"])
        return (reply["log"] as? [[String: Any]] ?? []).map { entry in
            LoggedRequest(
                path: entry["path"] as? String ?? "", headers: entry["headers"] as? [String: String] ?? [:],
                status: entry["status"] as? Int ?? 0)
        }
    }

    public func stop() {
        guard process.isRunning else { return }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    private func send(_ command: [String: Any]) -> [String: Any] {
        lock.withLock { _ in
            guard let data = try? JSONSerialization.data(withJSONObject: command) else { return [:] }
            input.write(data + Data("\n".utf8))
            let line = Self.readLine(output)
            return (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any] ?? [:]
        }
    }

    private static func readLine(_ handle: FileHandle) -> String {
        var bytes: [UInt8] = []
        while true {
            guard let byte = try? handle.read(upToCount: 1), let first = byte.first else { break }
            if first == UInt8(ascii: "\n") { break }
            bytes.append(first)
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The script beside this package's tests, or `MEDIANODE_FAULT_SERVER`.
    public static var scriptPath: String {
        if let path = ProcessInfo.processInfo.environment["MEDIANODE_FAULT_SERVER"] { return path }
        return URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Tests/Fixtures/fault_http_server.py").path
    }
}
