import Foundation

extension AudioFixtures {
    /// One Ogg file holding several Vorbis audio streams, each a tone at its own frequency tagged with its
    /// own language, so language options can be listed and switched, and the rendered tone tells which
    /// stream plays.
    @discardableResult
    public static func writeMultiLanguage(
        named name: String = "languages.ogg", streams: [(language: String, frequency: Int)], seconds: Double,
        in directory: URL
    ) async throws -> URL {
        let url = directory.appendingPathComponent(name)
        let buffers = max(1, Int((seconds * 100).rounded()))
        var arguments = ["-q", "oggmux", "name=mux", "!", "filesink", "location=\(url.path)"]
        for stream in streams {
            arguments += [
                "audiotestsrc", "freq=\(stream.frequency)", "samplesperbuffer=441", "num-buffers=\(buffers)",
                "volume=0.5", "!", "audio/x-raw,rate=44100,channels=2", "!",
                "taginject", "tags=\"language-code=(string)\(stream.language)\"", "!", "audioconvert", "!",
                "vorbisenc", "!", "mux.",
            ]
        }
        try await run("gst-launch-1.0", arguments)
        return url
    }
}
