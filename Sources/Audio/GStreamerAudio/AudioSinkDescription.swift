import Foundation
import Playback

/// Where the engine's audio goes, as written on the command line (`--audio-sink`).
public enum AudioSinkDescription: Sendable, Equatable, CustomStringConvertible {
    /// The sound server when one answers at start (as `soundServer(sink: nil)`), else the system's audio
    /// output (`autoaudiosink`); without one, a real-time fake sink so time still runs.
    case automatic
    /// The PulseAudio-protocol sound server the environment names (`PULSE_SERVER`, else the user's runtime
    /// socket): PulseAudio itself, or PipeWire through pipewire-pulse. Its default sink, or the named one.
    case soundServer(sink: String?)
    /// Discards audio at real-time pace (`fakesink sync=true`).
    case fake
    /// Records everything played, in order, into a WAV file that stays valid while it grows.
    case wav(path: String)
    /// Any gst-launch sink description, e.g. `pulsesink device=car` or `audioconvert ! alsasink`.
    case pipeline(String)

    /// Parses `auto`, `fake`, `pulse`, `pulse:SINK`, `wav:PATH` or a gst-launch sink description.
    public init(parsing text: String) throws(AudioError) {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        switch trimmed {
        case "": throw AudioError(.engine, "empty audio sink description")
        case "auto": self = .automatic
        case "fake": self = .fake
        case "pulse": self = .soundServer(sink: nil)
        case _ where trimmed.hasPrefix("pulse:"):
            let sink = String(trimmed.dropFirst(6))
            guard !sink.isEmpty else { throw AudioError(.engine, "pulse: needs a sink name (pactl list short sinks)") }
            self = .soundServer(sink: sink)
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
        case .soundServer(let sink): sink.map { "pulse:\($0)" } ?? "pulse"
        case .wav(let path): "wav:\(path)"
        case .pipeline(let text): text
        }
    }
}
