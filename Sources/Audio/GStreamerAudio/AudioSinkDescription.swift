import Foundation
import Playback

/// Where the engine's audio goes, as written on the command line (`--audio-sink`).
public enum AudioSinkDescription: Sendable, Equatable, CustomStringConvertible {
    /// The system's audio output (`autoaudiosink`); without one, a real-time fake sink so time still runs.
    case automatic
    /// Discards audio at real-time pace (`fakesink sync=true`).
    case fake
    /// Records everything played, in order, into a WAV file that stays valid while it grows.
    case wav(path: String)
    /// Any gst-launch sink description, e.g. `pulsesink device=car` or `audioconvert ! alsasink`.
    case pipeline(String)

    /// Parses `auto`, `fake`, `wav:PATH` or a gst-launch sink description.
    public init(parsing text: String) throws(AudioError) {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        switch trimmed {
        case "": throw AudioError(.engine, "empty audio sink description")
        case "auto": self = .automatic
        case "fake": self = .fake
        case _ where trimmed.hasPrefix("wav:"):
            let path = String(trimmed.dropFirst(4))
            guard !path.isEmpty else { throw AudioError(.engine, "wav: needs a file path") }
            self = .wav(path: path)
        default: self = .pipeline(trimmed)
        }
    }

    public var description: String {
        switch self {
        case .automatic: "auto"
        case .fake: "fake"
        case .wav(let path): "wav:\(path)"
        case .pipeline(let text): text
        }
    }
}
