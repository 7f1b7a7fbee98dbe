import CGStreamer
import Foundation
import Playback

/// The PulseAudio-protocol sound server (PulseAudio itself, or PipeWire through pipewire-pulse) as GStreamer's
/// `pulsesink` reaches it: the stream properties a car's policy routes, ducks and corks by, and whether the
/// server answers.
enum SoundServer {
    /// Every stream's `application.name`, and the client's name.
    static let applicationName = "MediaNode"
    /// The music's `media.role`.
    static let musicRole = "music"

    /// Where libpulse connects, as messages name it: `PULSE_SERVER`, else the user's runtime socket.
    static var address: String {
        let environment = ProcessInfo.processInfo.environment
        if let server = environment["PULSE_SERVER"], !server.isEmpty { return server }
        let runtime = environment["PULSE_RUNTIME_PATH"]
            ?? (environment["XDG_RUNTIME_DIR"] ?? "/run/user/\(getuid())") + "/pulse"
        return "unix:\(runtime)/native"
    }

    /// Whether `role` can be a `media.role`: policies match roles as plain words (`music`, `event`, `phone`).
    static func isValidRole(_ role: String) -> Bool {
        !role.isEmpty && role.count <= 64
            && role.unicodeScalars.allSatisfy { CharacterSet.alphanumerics.contains($0) || $0 == "-" || $0 == "_" }
    }

    /// A pulsesink for one stream in `role`, to `device` (nil: the server's default sink).
    static func makeSink(device: String?, role: String) throws(AudioError) -> UnsafeMutablePointer<GstElement> {
        let sink = try AudioSink.makeElement("pulsesink")
        if let device { mn_object_set_string(sink, "device", device) }
        configure(sink, role: role)
        return sink
    }

    /// Gives a pulsesink the client name and the stream properties of a MediaNode stream in `role`; stream
    /// properties a sink description already gave it are left as they are.
    static func configure(_ sink: UnsafeMutablePointer<GstElement>, role: String) {
        mn_object_set_string(sink, "client-name", applicationName)
        guard mn_object_has_structure(sink, "stream-properties") == 0 else { return }
        let safeRole = isValidRole(role) ? role : musicRole
        guard let properties = gst_structure_new_from_string(
            "props, media.role=(string)\(safeRole), application.name=(string)\(applicationName)")
        else { return }
        mn_object_set_structure(sink, "stream-properties", properties)
        gst_structure_free(properties)
    }

    /// nil when the server answers now (and has `device`, when one is named), else why not, naming the server.
    ///
    /// A pulsesink of its own brought to READY connects to the server; this blocks the calling thread for as
    /// long as that takes (a millisecond for a missing socket, a few for a server that answers), so callers
    /// that must not block run it on a thread of their own.
    static func unreachable(device: String?) -> String? {
        guard let sink = try? AudioSink.makeElement("pulsesink") else {
            return "GStreamer's pulsesink is not installed (Debian: gstreamer1.0-pulseaudio)"
        }
        mn_object_set_string(sink, "client-name", applicationName)
        let bus = gst_bus_new()
        gst_element_set_bus(sink, bus)
        defer {
            gst_element_set_state(sink, GST_STATE_NULL)
            mn_object_unref(sink)
            if let bus { mn_object_unref(bus) }
        }
        guard gst_element_set_state(sink, GST_STATE_READY) != GST_STATE_CHANGE_FAILURE else {
            var reason = "no connection"
            if let bus, let message = gst_bus_pop_filtered(bus, GST_MESSAGE_ERROR) {
                var error: UnsafeMutablePointer<GError>?
                gst_message_parse_error(message, &error, nil)
                reason = GStreamer.consume(error)
                mn_message_unref(message)
            }
            return "the sound server at \(address) does not answer (\(reason))"
        }
        guard let device else { return nil }
        // pulsesink looks the named sink up on the server when asked for its description.
        mn_object_set_string(sink, "device", device)
        guard let description = mn_object_get_string(sink, "device-name") else {
            return "the sound server at \(address) has no sink named \(device) (pactl list short sinks)"
        }
        g_free(description)
        return nil
    }
}

extension AudioSinkDescription {
    /// `auto` as it is played: the sound server when one answers now, else the system's output (probed when
    /// the sink is made). Blocks for the probe's connection (milliseconds).
    func resolved() -> AudioSinkDescription {
        guard self == .automatic, SoundServer.unreachable(device: nil) == nil else { return self }
        return .soundServer(sink: nil)
    }
}

/// An output that is a sound server's stream: which sink it plays to, and the naming of the stream.
struct SoundServerStream: Sendable {
    /// The server's sink named in the description; nil: its default sink.
    let device: String?
    let naming: StreamNaming

    /// The sound server stream in `output`, if it has a pulsesink (the element itself or one inside a sink
    /// description), given MediaNode's stream properties.
    init?(in output: UnsafeMutablePointer<GstElement>, role: String, title: String?) {
        guard let sink = mn_find_by_factory(output, "pulsesink") else { return nil }
        // The output holds the sink as long as the pipeline does: borrowed from here on.
        defer { mn_object_unref(sink) }
        SoundServer.configure(sink, role: role)
        let device = mn_object_get_string(sink, "device")
        self.device = device.map { String(cString: $0) }
        g_free(device)
        naming = StreamNaming(sink: sink, title: title)
        naming.attach()
    }
}
