import MediaJSON
import RemoteCommands

/// How MPRIS reaches the command center: the node's one way in for commands.
public protocol MPRISCommandDoor: Sendable {
    /// Performs `command` with `payload` as its MQTT request would be: on the same lane, in arrival order,
    /// by the same rules, with the same state published and its reply on `P/result`, counted in `P/metrics`.
    /// Returns at once, having queued it; `answer` gets the reply, once, on any thread.
    func submit(command: String, payload: JSONValue, answer: @escaping @Sendable (CommandReply) -> Void)
}

/// Where MPRIS reads what the node shows. Implemented by the parts that own each document.
public protocol MPRISStateSource: Sendable {
    /// The published documents and playback's newest snapshot, now (`artURL` left nil). Cheap and never
    /// waits: called on every change and before every answer.
    func inputs() -> MPRISInputs
    /// The picture `P/nowplaying` points at, if any.
    func currentPicture() -> MPRISPicture?
    /// The queue in play order, each entry as a now-playing document of its own.
    func queueEntries() async -> [MPRISQueueEntry]
    /// A picture the catalog has cached, by its key.
    func catalogPicture(key: String) async -> [UInt8]?
}

/// A picture and the content key that names it (the same picture, the same key).
public struct MPRISPicture: Sendable, Equatable {
    public var key: String
    public var bytes: [UInt8]

    public init(key: String, bytes: [UInt8]) {
        self.key = key
        self.bytes = bytes
    }
}

/// One queue entry as `GetTracksMetadata` shows it.
public struct MPRISQueueEntry: Sendable {
    /// The entry as a now-playing document: the catalog's keys for it, in now playing's names.
    public var document: JSONValue
    /// Where its audio is (a path or URL).
    public var location: String?
    /// The key of the picture the catalog has cached for it.
    public var artworkKey: String?

    public init(document: JSONValue, location: String?, artworkKey: String?) {
        self.document = document
        self.location = location
        self.artworkKey = artworkKey
    }
}
