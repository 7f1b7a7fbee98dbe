import MediaJSON
import Playback

/// What the MPRIS properties are read from: the documents the node publishes on MQTT, as published, and
/// the few facts MQTT does not carry (the listener's rate while paused, the live position, the item's
/// location, where its picture is as a file).
public struct MPRISInputs: Sendable, Equatable {
    /// `P/nowplaying`.
    public var nowPlaying: JSONValue
    /// `P/queue`.
    public var queue: JSONValue
    /// `P/volume`; null on a node without audio.
    public var volume: JSONValue
    /// `P/commands`.
    public var commands: JSONValue
    /// The playback controller's newest snapshot; nil on a node without audio.
    public var playback: PlaybackSnapshot?
    /// A `file://` URL of the current item's picture, once it has one.
    public var artURL: String?

    public init(nowPlaying: JSONValue = ["state": "stopped"], queue: JSONValue = .null, volume: JSONValue = .null,
                commands: JSONValue = .null, playback: PlaybackSnapshot? = nil, artURL: String? = nil) {
        self.nowPlaying = nowPlaying
        self.queue = queue
        self.volume = volume
        self.commands = commands
        self.playback = playback
        self.artURL = artURL
    }

    /// Whether `P/commands` shows `command` enabled.
    func isEnabled(_ command: String) -> Bool { commands[command]?["enabled"] == .bool(true) }

    /// The queue's identifiers in play order, as `P/queue` lists them.
    var queueIdentifiers: [String] {
        guard case let .array(identifiers)? = queue["identifiers"] else { return [] }
        return identifiers.compactMap(\.stringValue)
    }

    /// The track ids of the queue, in play order.
    var trackIDs: [String] { MPRISTrackID.paths(for: queueIdentifiers) }

    /// The current entry's track id, or MPRIS's "no track": the entry now playing names. Now playing and
    /// `P/queue` are marked one after the other, so for a moment they can disagree; the entry is the one now
    /// playing shows (its index if the queue agrees, else the identifier's first entry).
    var currentTrackID: String {
        guard nowPlaying["state"]?.stringValue != "stopped", let identifier = nowPlaying["identifier"]?.stringValue
        else { return MPRISNames.noTrack }
        let identifiers = queueIdentifiers
        let paths = MPRISTrackID.paths(for: identifiers)
        if let index = nowPlaying["playbackQueueIndex"]?.numberValue.flatMap({ Int(exactly: $0) }),
           identifiers.indices.contains(index), identifiers[index] == identifier {
            return paths[index]
        }
        if let index = identifiers.firstIndex(of: identifier) { return paths[index] }
        return MPRISTrackID.paths(for: [identifier])[0]
    }

    /// The live position in µs, where the audio is.
    func position(at now: Double) -> Int64 {
        guard let playback, playback.item != nil else { return 0 }
        return MPRISTime.microseconds(playback.elapsed(at: now))
    }
}

/// MPRIS counts time in microseconds (`x`), the node in seconds.
enum MPRISTime {
    /// Seconds as µs, clamped to what an Int64 holds (a NaN is 0).
    static func microseconds(_ seconds: Double) -> Int64 {
        let value = (seconds * 1_000_000).rounded()
        guard value.isFinite else { return value > 0 ? .max : 0 }
        return value >= 9.2e18 ? .max : value <= -9.2e18 ? .min : Int64(value)
    }

    static func seconds(_ microseconds: Int64) -> Double { Double(microseconds) / 1_000_000 }
}
