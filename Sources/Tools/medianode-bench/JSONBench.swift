import ArgumentParser
import CMalloc
import Foundation
import MediaJSON

/// MediaNode's own JSON (MediaJSON's parser and writer) beside Foundation's JSONSerialization and
/// JSONDecoder/JSONEncoder on the documents the node reads and writes: a command's payload, a now-playing
/// document and a page of the content tree. Prints medians and p99 of each, the ratio to MediaJSON, the
/// memory the parsed value holds, and what each accepts of the inputs a strict reader must refuse.
struct JSONBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "json",
        abstract: "MediaJSON's parser and writer beside JSONSerialization and JSONDecoder/JSONEncoder: speed, memory, strictness.")

    @Option(help: "Rounds per document and library (each timed alone).")
    var rounds = 3_000

    func run() async throws {
        print("JSON: MediaJSON beside Foundation (swift-corelibs-foundation), \(rounds) rounds per row; /proc/loadavg \(loadAverage())")
        for (name, document) in Self.documents() {
            let bytes = document.jsonBytes
            let data = Data(bytes)
            print("\n\(name) (\(bytes.count) bytes)")
            let parse = [
                ("MediaJSON JSONValue(parsing:)", time(rounds) { _ = try? JSONValue(parsing: bytes) }),
                ("JSONSerialization.jsonObject", time(rounds) { _ = try? JSONSerialization.jsonObject(with: data) }),
                ("JSONDecoder (a JSON enum)", time(rounds) { _ = try? JSONDecoder().decode(FoundationJSON.self, from: data) }),
            ]
            table("parse", parse)
            let object = try JSONSerialization.jsonObject(with: data)
            let decoded = try JSONDecoder().decode(FoundationJSON.self, from: data)
            let write = [
                ("MediaJSON jsonBytes", time(rounds) { _ = document.jsonBytes }),
                ("JSONSerialization.data", time(rounds) { _ = try? JSONSerialization.data(withJSONObject: object) }),
                ("JSONEncoder (a JSON enum)", time(rounds) { _ = try? JSONEncoder().encode(decoded) }),
            ]
            table("write", write)
            print("  memory the parsed value holds, per copy (malloc'd bytes of 100 copies kept alive / 100, mallinfo2):")
            print("    MediaJSON \(held { try? JSONValue(parsing: bytes) })   JSONSerialization \(held { try? JSONSerialization.jsonObject(with: data) })"
                  + "   JSONDecoder \(held { try? JSONDecoder().decode(FoundationJSON.self, from: data) })")
        }
        print("\nStrictness (RFC 8259): what each reader makes of inputs a strict reader refuses or must not guess at")
        func line(_ cells: [String]) -> String {
            zip(cells, [36, 28, 28, 0]).map { cell, width in cell.padding(toLength: max(width, cell.count + 1), withPad: " ", startingAt: 0) }
                .joined()
        }
        print("  " + line(["input", "MediaJSON", "JSONSerialization", "JSONDecoder"]))
        for (name, bytes) in Self.hostile() {
            let data = Data(bytes)
            let ours = (try? JSONValue(parsing: bytes)).map { "accepts \($0.jsonString.prefix(16))" } ?? "refuses"
            let serialization = (try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]))
                .map { "accepts \(Self.short($0))" } ?? "refuses"
            let decoder = (try? JSONDecoder().decode(FoundationJSON.self, from: data)).map { "accepts \($0.text.prefix(16))" } ?? "refuses"
            print("  " + line([name, ours, serialization, decoder]))
        }
        print("  (MediaJSON reads bytes the node has already checked as UTF-8: a request's payload is refused before it is parsed.)")
    }

    // MARK: - The documents

    static func documents() -> [(String, JSONValue)] {
        let command: JSONValue = ["id": "req-42", "volume": 0.5]
        let nowPlaying: JSONValue = [
            "state": "playing", "timestamp": 1_763_800_000.25, "elapsedPlaybackTime": 53, "playbackRate": 1,
            "defaultPlaybackRate": 1, "playbackDuration": 231, "title": "Style", "artist": "Taylor Swift",
            "albumTitle": "1989", "genre": "Pop", "releaseDate": "2014", "albumTrackNumber": 3, "albumTrackCount": 13,
            "discNumber": 1, "discCount": 1, "playbackQueueIndex": 2, "playbackQueueCount": 13, "isLiveStream": false,
            "mediaType": "audio", "identifier": "track:9f2c41d0", "nowPlayingIdentifiers": ["library", "album:1989", "track:9f2c41d0"],
            "artwork": ["topic": "medianode/car1/artwork/9f2c41d07a", "mimeType": "image/jpeg", "width": 600, "height": 600],
            "repeatMode": "off", "shuffleMode": "off",
        ]
        let children: [JSONValue] = (0..<100).map { index in
            [
                "identifier": .string("track:\(index)-5be1c0de"), "title": .string("Track \(index) — Ünïcödé & \"quotes\""),
                "subtitle": "Some Artist", "isPlayable": true, "isContainer": false, "isExplicitItem": false,
                "isStreamingContent": false, "playbackProgress": .number(Double(index % 10) / 10),
                "artwork": ["topic": .string("medianode/car1/artwork/\(index)abc"), "width": 300, "height": 300],
            ]
        }
        let page: JSONValue = ["indexPath": [0, 2], "title": "Albums", "offset": 0, "total": 100, "children": .array(children)]
        return [("a command's payload", command), ("now playing", nowPlaying), ("a content-tree page of 100 items", page)]
    }

    static func hostile() -> [(String, [UInt8])] {
        func nested(_ depth: Int) -> [UInt8] { Array((String(repeating: "[", count: depth) + String(repeating: "]", count: depth)).utf8) }
        return [
            (#"duplicate keys {"a":1,"a":2}"#, Array(#"{"a":1,"a":2}"#.utf8)),
            (#"lone surrogate ["\ud800"]"#, Array(#"["\ud800"]"#.utf8)),
            ("invalid UTF-8 byte in a string", [0x5B, 0x22, 0xFF, 0x22, 0x5D]),
            ("nesting 64 deep", nested(64)),
            ("nesting 600 deep", nested(600)),
            ("nesting 100,000 deep", nested(100_000)),
            ("[1e400] (past a double)", Array("[1e400]".utf8)),
            ("[400 nines] (an integer)", Array(("[" + String(repeating: "9", count: 400) + "]").utf8)),
            ("[12345678901234567890123]", Array("[12345678901234567890123]".utf8)),
            ("[1,] (trailing comma)", Array("[1,]".utf8)),
            ("[NaN]", Array("[NaN]".utf8)),
            ("raw tab inside a string", Array("[\"a\tb\"]".utf8)),
            ("byte order mark before [1]", [0xEF, 0xBB, 0xBF] + Array("[1]".utf8)),
            ("[1] then x", Array("[1]x".utf8)),
        ]
    }

    static func short(_ object: Any) -> String {
        guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.fragmentsAllowed]) else { return "?" }
        return String(decoding: data.prefix(16), as: UTF8.self)
    }

    // MARK: - Measuring

    func time(_ rounds: Int, _ body: () -> Void) -> LatencySamples {
        for _ in 0..<min(rounds, 200) { body() }  // warm up
        var samples = LatencySamples()
        let clock = ContinuousClock()
        for _ in 0..<rounds { samples.append(clock.measure(body)) }
        return samples
    }

    func table(_ what: String, _ rows: [(String, LatencySamples)]) {
        let base = rows[0].1.median
        for (name, samples) in rows {
            let label = (what + " " + name).padding(toLength: 40, withPad: " ", startingAt: 0)
            print("  " + label + String(format: "p50 %9.2f µs  p99 %9.2f µs  p50 ratio to MediaJSON %5.2fx",
                                        samples.median, samples.percentile(99), samples.median / base))
        }
    }

    /// malloc'd bytes held per value while 100 values `make` returns are alive (one alone can fit in chunks
    /// malloc's thread cache already counts as in use).
    func held<T>(_ make: () -> T) -> Int {
        let before = mn_allocated_bytes()
        let values = (0..<100).map { _ in make() }
        let after = mn_allocated_bytes()
        withExtendedLifetime(values) {}
        return (after - before - 100 * MemoryLayout<T>.stride) / 100
    }

    func loadAverage() -> String {
        ((try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8)) ?? "?").trimmingCharacters(in: .whitespacesAndNewlines)
    }
}

/// Any JSON value as a Codable enum: what JSONDecoder and JSONEncoder work with when the shape is not fixed.
enum FoundationJSON: Codable {
    case null, bool(Bool), number(Double), string(String), array([FoundationJSON]), object([String: FoundationJSON])

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([FoundationJSON].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: FoundationJSON].self))
        }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case let .bool(value): try container.encode(value)
        case let .number(value): try container.encode(value)
        case let .string(value): try container.encode(value)
        case let .array(value): try container.encode(value)
        case let .object(value): try container.encode(value)
        }
    }

    var text: String { (try? JSONEncoder().encode(self)).map { String(decoding: $0, as: UTF8.self) } ?? "?" }
}
