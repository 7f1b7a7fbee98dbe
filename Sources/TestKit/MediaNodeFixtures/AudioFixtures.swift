import Foundation

/// One generated test track: a sine tone with a distinct frequency, so a test can tell from the
/// rendered audio which track played.
public struct ToneTrack: Sendable, Hashable {
    public var fileName: String
    public var frequency: Int
    public var seconds: Double
    public var title: String
    public var artist: String
    public var album: String
    public var trackNumber: Int
    public var trackCount: Int
    public var discNumber: Int
    /// Written as album-disc-count when set (DISCTOTAL, TPOS "n/m", the MP4 disk pair).
    public var discCount: Int?
    public var composer: String?
    public var genre: String
    /// Year, or year-month-day.
    public var date: String
    /// The sine's peak, 1.0 = full scale.
    public var amplitude = 0.5
    /// More tags in GStreamer's syntax, e.g. `replaygain-track-gain=(double)-10`, which the encoder writes
    /// as the format's own (REPLAYGAIN_TRACK_GAIN in a Vorbis comment).
    public var extraTags: [String] = []

    public init(
        fileName: String, frequency: Int, seconds: Double, title: String, artist: String = "Test Artist",
        album: String = "Test Album", trackNumber: Int = 1, trackCount: Int = 1, discNumber: Int = 1,
        discCount: Int? = nil, composer: String? = nil, genre: String = "Test", date: String = "2024"
    ) {
        self.fileName = fileName
        self.frequency = frequency
        self.seconds = seconds
        self.title = title
        self.artist = artist
        self.album = album
        self.trackNumber = trackNumber
        self.trackCount = trackCount
        self.discNumber = discNumber
        self.discCount = discCount
        self.composer = composer
        self.genre = genre
        self.date = date
    }
}

public enum AudioFixtureError: Error, CustomStringConvertible {
    case toolFailed(command: String, status: Int32, output: String)
    public var description: String {
        switch self {
        case let .toolFailed(command, status, output): "\(command) exited \(status): \(output)"
        }
    }
}

/// Generates real audio files at test time with GStreamer's own tools, so no binary fixture is committed.
public enum AudioFixtures {
    /// Encodes `track` (44.1 kHz stereo) with its tags into `directory`, in the format its extension names (Ogg
    /// Vorbis unless flac, mp3, m4a or wav); returns the file URL.
    @discardableResult
    public static func writeTone(_ track: ToneTrack, in directory: URL) async throws -> URL {
        let url = directory.appendingPathComponent(track.fileName)
        try FileManager.default.createDirectory(
            at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        // 441 samples per buffer at 44.1 kHz: one buffer is 10 ms, so the length is exact to 10 ms.
        let buffers = max(1, Int((track.seconds * 100).rounded()))
        let encoder: [String]
        switch url.pathExtension.lowercased() {
        case "flac": encoder = ["flacenc"]
        case "mp3": encoder = ["lamemp3enc", "!", "id3v2mux"]
        // AAC from gstreamer1.0-libav: the plugin sets Debian installs have no other AAC encoder.
        case "m4a": encoder = ["avenc_aac", "!", "mp4mux"]
        case "wav": encoder = ["wavenc"]
        default: encoder = ["vorbisenc", "!", "oggmux"]
        }
        let arguments =
            [
                "-q", "audiotestsrc", "freq=\(track.frequency)", "samplesperbuffer=441", "num-buffers=\(buffers)",
                "volume=\(track.amplitude)", "!", "audio/x-raw,rate=44100,channels=2", "!",
                "taginject", "tags=\"\(tagList(for: track))\"", "!", "audioconvert", "!",
            ] + encoder + ["!", "filesink", "location=\(url.path)"]
        try await run("gst-launch-1.0", arguments)
        return url
    }

    /// Writes a JPEG test picture (`width` x `height`) named `name` into `directory` (e.g. cover.jpg).
    @discardableResult
    public static func writeCover(named name: String = "cover.jpg", width: Int = 800, height: Int = 800,
                                  pattern: Int = 0, in directory: URL) async throws -> URL {
        let url = directory.appendingPathComponent(name)
        let encoder = url.pathExtension.lowercased() == "png" ? "pngenc" : "jpegenc"
        try await run("gst-launch-1.0", [
            "-q", "videotestsrc", "num-buffers=1", "pattern=\(pattern)", "!",
            "video/x-raw,width=\(width),height=\(height)", "!", "videoconvert", "!", encoder, "!",
            "filesink", "location=\(url.path)",
        ])
        return url
    }

    /// A small album: `count` tracks at distinct frequencies (440, 660, 880, ... Hz), each `seconds` long.
    public static func album(count: Int, seconds: Double, album: String = "Test Album",
                             artist: String = "Test Artist", baseFrequency: Int = 440) -> [ToneTrack] {
        (0..<count).map { index in
            ToneTrack(
                fileName: String(format: "%02d Tone %d.ogg", index + 1, baseFrequency + 220 * index),
                frequency: baseFrequency + 220 * index, seconds: seconds,
                title: "Tone \(baseFrequency + 220 * index)", artist: artist, album: album,
                trackNumber: index + 1, trackCount: count)
        }
    }

    /// A temporary directory for one test; the caller removes it.
    public static func makeTemporaryDirectory(_ label: String = "fixture") throws -> URL {
        let url = FileManager.default.temporaryDirectory
            .appendingPathComponent("medianode-\(label)-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    static func tagList(for track: ToneTrack) -> String {
        func quoted(_ text: String) -> String {
            "\\\"" + text.replacingOccurrences(of: "\"", with: "'") + "\\\""
        }
        let date = track.date.count == 4 ? "\(track.date)-01-01" : track.date
        var tags = [
            "title=(string)\(quoted(track.title))",
            "artist=(string)\(quoted(track.artist))",
            "album=(string)\(quoted(track.album))",
            "genre=(string)\(quoted(track.genre))",
            "track-number=(uint)\(track.trackNumber)",
            "track-count=(uint)\(track.trackCount)",
            "album-disc-number=(uint)\(track.discNumber)",
            "datetime=(GstDateTime)\(date)",
        ]
        if let discCount = track.discCount { tags.append("album-disc-count=(uint)\(discCount)") }
        if let composer = track.composer { tags.append("composer=(string)\(quoted(composer))") }
        return (tags + track.extraTags).joined(separator: ",")
    }

    static func run(_ tool: String, _ arguments: [String]) async throws {
        let (status, output) = try await ToolRun.capture(tool, arguments)
        guard status == 0 else {
            throw AudioFixtureError.toolFailed(
                command: ([tool] + arguments).joined(separator: " "), status: status, output: output)
        }
    }
}
