import Foundation
import MediaJSON
import MediaNode
import MediaNodeTesting
import Testing

/// What a listener of a node with a real engine sees: replies, retained topics, events and the WAV.
extension RunningNode {
    /// Sends `command` with a fresh id and the given JSON fields (e.g. `"positionTime": 6`); returns the reply.
    @discardableResult
    func send(_ command: String, _ fields: String = "") async throws -> JSONValue {
        let id = "\(command)-\(UUID().uuidString.prefix(8))"
        let payload = fields.isEmpty ? #"{"id":"\#(id)"}"# : #"{"id":"\#(id)",\#(fields)}"#
        return try await request(command, payload, id: id)
    }

    /// The reply's status name.
    func status(_ command: String, _ fields: String = "") async throws -> String {
        try await send(command, fields)["status"]?.stringValue ?? "no status"
    }

    /// The latest retained document on `topic`.
    func latest(_ topic: String) async -> JSONValue? {
        guard let message = await client.latest(on: topic), !message.payload.isEmpty else { return nil }
        return try? JSONValue(parsing: message.payload)
    }

    var nowPlaying: JSONValue? { get async { await latest(topics.nowPlaying) } }
    var commands: JSONValue? { get async { await latest(topics.commands) } }
    var queue: JSONValue? { get async { await latest(topics.queue) } }

    /// Waits until the latest document on `topic` satisfies `predicate`; returns it.
    @discardableResult
    func waitUntil(_ topic: String, _ what: String, timeout: Double = 10,
                   _ predicate: (JSONValue) -> Bool) async throws -> JSONValue {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if let value = await latest(topic), predicate(value) { return value }
            try await Task.sleep(for: .milliseconds(20))
        }
        throw WaitTimeout("\(what); latest on \(topic): \(await latest(topic)?.jsonString ?? "nothing")")
    }

    @discardableResult
    func waitForState(_ state: String, timeout: Double = 10) async throws -> JSONValue {
        try await waitUntil(topics.nowPlaying, "now playing \(state)", timeout: timeout) { $0["state"]?.stringValue == state }
    }

    /// Waits until now playing's live position reaches `seconds`.
    func waitForPosition(atLeast seconds: Double, timeout: Double = 10) async throws {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if let position = livePosition(await nowPlaying), position >= seconds { return }
            try await Task.sleep(for: .milliseconds(20))
        }
        throw WaitTimeout("position \(seconds) s; now playing: \(await nowPlaying?.jsonString ?? "nothing")")
    }

    /// Every event on `P/events` so far.
    func events() async -> [JSONValue] {
        await client.messages(on: topics.events).compactMap { try? JSONValue(parsing: $0.payload) }
    }

    /// Waits for an event (already received or arriving) that satisfies `predicate`.
    @discardableResult
    func waitForEvent(_ what: String, timeout: Double = 10, _ predicate: @escaping @Sendable (JSONValue) -> Bool)
        async throws -> JSONValue {
        let eventsTopic = topics.events
        let message = try await client.first(timeout: .milliseconds(Int(timeout * 1000))) { message in
            message.topic == eventsTopic && (try? JSONValue(parsing: message.payload)).map(predicate) == true
        }
        return try JSONValue(parsing: message.payload)
    }

    // MARK: - The rendered audio

    func wav() throws -> WAVFile {
        guard let wavURL else { throw WAVFileError.unreadable("this node has no WAV sink") }
        return try WAVFile(contentsOf: wavURL)
    }

    /// Seconds of audio rendered so far (0 before the first buffer).
    func renderedSeconds() -> Double { (try? wav().duration) ?? 0 }

    /// Waits until at least `seconds` of audio have been rendered; returns how much there is.
    @discardableResult
    func waitForAudio(atLeast seconds: Double, timeout: Double = 10) async throws -> Double {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            let rendered = renderedSeconds()
            if rendered >= seconds { return rendered }
            try await Task.sleep(for: .milliseconds(20))
        }
        throw WaitTimeout("\(seconds) s of rendered audio (have \(renderedSeconds()))")
    }

    /// The tone of the most recently rendered `length` seconds (ending `skipEnd` before the end).
    func recentTone(length: Double = 0.3, skipEnd: Double = 0.05) throws -> Double? {
        let file = try wav()
        return file.dominantFrequency(from: max(0, file.duration - length - skipEnd), length: length)
    }

    /// The tone between two points of the rendered audio.
    func tone(from start: Double, length: Double) throws -> Double? {
        try wav().dominantFrequency(from: start, length: length)
    }
}

struct WaitTimeout: Error, CustomStringConvertible {
    var description: String
    init(_ what: String) { description = "timed out waiting for \(what)" }
}

/// A library folder of generated tones, one per frequency, in that order; removed by `remove()`.
struct ToneLibrary {
    let directory: URL
    let library: URL
    let wav: URL
    var files: [URL] = []

    init(_ label: String, tones: [(frequency: Int, seconds: Double)]) async throws {
        directory = try AudioFixtures.makeTemporaryDirectory(label)
        library = directory.appendingPathComponent("library")
        wav = directory.appendingPathComponent("out.wav")
        try FileManager.default.createDirectory(at: library, withIntermediateDirectories: true)
        for (index, tone) in tones.enumerated() {
            files.append(try await AudioFixtures.writeTone(
                ToneTrack(fileName: String(format: "%02d tone %d.ogg", index + 1, tone.frequency),
                          frequency: tone.frequency, seconds: tone.seconds, title: "Tone \(tone.frequency)"),
                in: library))
        }
    }

    /// One file with two audio streams: English at 440 Hz and German at 880 Hz, so the tone heard tells
    /// which language plays.
    static func bilingual(_ label: String, seconds: Double) async throws -> ToneLibrary {
        let library = try await ToneLibrary(label, tones: [])
        try await AudioFixtures.writeMultiLanguage(
            streams: [(language: "en", frequency: 440), (language: "de", frequency: 880)], seconds: seconds,
            in: library.library)
        return library
    }

    /// The catalog identifier of the file at `index`, as the node names it in the queue.
    func identifier(_ index: Int) -> String { identifier(of: files[index]) }

    func identifier(of file: URL) -> String {
        LibraryCatalog.trackIdentifier(path: file.path, libraries: [library.path])
    }

    /// Starts a node over this library; `afterScan` runs once the catalog has scanned it, before the queue loads.
    /// With `keepingCatalog`, the catalog file lives in this library's folder and a later start uses it again.
    func start(keepingCatalog: Bool = false, afterScan: () throws -> Void = {},
               configure: (inout NodeConfiguration) -> Void = { _ in }) async throws -> RunningNode {
        var running = try await RunningNode.start(
            libraries: [library.path], sink: "wav:\(wav.path)",
            catalogFile: keepingCatalog ? directory.appendingPathComponent("catalog.sqlite") : nil, afterScan: afterScan,
            configure: configure)
        running.wavURL = wav
        return running
    }

    func remove() { try? FileManager.default.removeItem(at: directory) }
}

/// `value` is within `tolerance` (a fraction) of `expected`.
func isNear(_ value: Double?, _ expected: Double, within tolerance: Double = 0.05) -> Bool {
    guard let value else { return false }
    return abs(value - expected) <= abs(expected) * tolerance
}

/// now playing's live position: elapsed + (now - timestamp) x playbackRate.
func livePosition(_ nowPlaying: JSONValue?) -> Double? {
    guard let nowPlaying, let elapsed = nowPlaying["elapsedPlaybackTime"]?.numberValue else { return nil }
    let timestamp = nowPlaying["timestamp"]?.numberValue ?? Date().timeIntervalSince1970
    let rate = nowPlaying["playbackRate"]?.numberValue ?? 0
    return elapsed + (Date().timeIntervalSince1970 - timestamp) * rate
}

func sleep(_ seconds: Double) async throws {
    try await Task.sleep(for: .milliseconds(Int(seconds * 1000)))
}
