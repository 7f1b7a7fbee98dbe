import Foundation

/// An endless internet-radio stream (Tests/Fixtures/radio_stream_server.py) in a child process: Ogg Vorbis
/// at `/<name>.ogg` or MP3 at `/<name>.mp3`, with no Content-Length, paced like a radio server, and ICY
/// metadata (`icy-metaint`, StreamTitle) for listeners that ask for it with `Icy-MetaData: 1`.
public final class RadioStreamServer: Sendable {
    /// One request the server saw.
    public struct LoggedRequest: Sendable {
        public var path: String
        public var headers: [String: String]
        /// Whether the answer interleaved ICY metadata.
        public var icy: Bool
    }

    private let child: FixtureServerProcess

    public init() async throws {
        child = try await FixtureServerProcess(
            script: FixtureServerProcess.scriptPath("radio_stream_server.py", environmentKey: "MEDIANODE_RADIO_SERVER"))
    }

    public var port: Int { child.port }

    /// The stream's URL; the extension (`.ogg` or `.mp3`) picks the format.
    public func url(_ path: String) -> URL { URL(string: "http://127.0.0.1:\(port)\(path)")! }

    /// The StreamTitle listeners receive from their next metadata block on ("Artist - Title"); nil: none.
    public func setStreamTitle(_ title: String?) async {
        _ = await child.send(["op": "title", "title": title ?? NSNull()])
    }

    public func requests() async -> [LoggedRequest] {
        let reply = await child.send(["op": "log"])
        return (reply["log"] as? [[String: Any]] ?? []).map { entry in
            LoggedRequest(
                path: entry["path"] as? String ?? "", headers: entry["headers"] as? [String: String] ?? [:],
                icy: entry["icy"] as? Bool ?? false)
        }
    }

    public func stop() { child.stop() }
}
