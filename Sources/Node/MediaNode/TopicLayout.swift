/// Every topic of the contract under one prefix (`P/` in topics.md).
public struct TopicLayout: Sendable, Equatable {
    public let prefix: String
    /// `P/cmd/` as bytes: every inbound message is classified by it on the network thread.
    private let commandHead: [UInt8]

    public init(prefix: String) {
        self.prefix = prefix.hasSuffix("/") ? String(prefix.dropLast()) : prefix
        commandHead = Array("\(self.prefix)/\(TopicLeaf.command.rawValue)/".utf8)
    }

    /// `P/<leaf>`.
    public func topic(_ leaf: TopicLeaf) -> String { "\(prefix)/\(leaf.rawValue)" }

    public var status: String { topic(.status) }
    public var info: String { topic(.info) }
    public var commands: String { topic(.commands) }
    public var nowPlaying: String { topic(.nowPlaying) }
    /// `P/nowplaying/artwork`: the playing item's picture itself, empty when it has none, so a reader
    /// that cannot follow now playing's `artwork.topic` (Home Assistant's image) still shows it.
    public var nowPlayingArtwork: String { topic(.nowPlayingArtwork) }
    public var queue: String { topic(.queue) }
    public var volume: String { topic(.volume) }
    public var result: String { topic(.result) }
    public var events: String { topic(.events) }
    public var context: String { topic(.context) }
    public var metrics: String { topic(.metrics) }
    public var commandFilter: String { command("+") }
    public var contentTree: String { topic(.contentTree) }

    public func command(_ name: String) -> String { "\(topic(.command))/\(name)" }
    public func artwork(_ key: String) -> String { "\(topic(.artwork))/\(key)" }

    /// The tree node topic for an index path; the root is `P/content/tree`.
    public func contentTree(_ indexPath: [Int]) -> String {
        indexPath.isEmpty ? contentTree : contentTree + "/" + indexPath.map(String.init).joined(separator: "/")
    }

    /// The command name if `topic` is a command topic of this node.
    /// Compares bytes: topics are UTF-8 and matched byte for byte, as the broker matches them.
    public func commandName(in topic: String) -> String? {
        let bytes = topic.utf8
        // `P/cmd/` itself is a command topic too (an empty name matches `P/cmd/+`): it is answered as unknown.
        guard bytes.count >= commandHead.count, bytes.starts(with: commandHead) else { return nil }
        let name = bytes.dropFirst(commandHead.count)
        return name.contains(UInt8(ascii: "/")) ? nil : String(name)
    }
}
