import MediaJSON
/// Every command the node accepts on `P/cmd/<name>`: the seed's twenty (S1), the playable-content
/// commands and `interrupt`.
public enum RemoteCommand: String, CaseIterable, Sendable, Hashable {
    case play, pause, stop, togglePlayPause, nextTrack, previousTrack
    case skipForward, skipBackward, seekForward, seekBackward
    case changePlaybackPosition, changePlaybackRate, changeRepeatMode, changeShuffleMode
    case rating, like, dislike, bookmark
    case enableLanguageOption, disableLanguageOption
    case playItem, prepareQueue, browse, contentItem
    case interrupt

    /// Commands that act on the current item and so need one (S4 noActionableNowPlayingItem).
    public var needsNowPlayingItem: Bool {
        switch self {
        case .play, .pause, .togglePlayPause, .nextTrack, .previousTrack, .skipForward, .skipBackward,
             .seekForward, .seekBackward, .changePlaybackPosition, .changePlaybackRate:
            true
        default:
            false
        }
    }
}

/// The status a handler answers with (S4), with the seed's numeric codes.
public enum CommandStatus: String, Sendable, CaseIterable {
    case success
    case noSuchContent
    case noActionableNowPlayingItem
    case deviceNotFound
    case commandFailed

    public var code: Int {
        switch self {
        case .success: 0
        case .noSuchContent: 100
        case .noActionableNowPlayingItem: 110
        case .deviceNotFound: 120
        case .commandFailed: 200
        }
    }
}

/// What a handler returns: a status, a message saying why when it is not success, and optional data.
public struct CommandResult: Sendable, Equatable {
    public var status: CommandStatus
    public var message: String?
    public var data: JSONValue?

    public init(_ status: CommandStatus, message: String? = nil, data: JSONValue? = nil) {
        self.status = status
        self.message = message
        self.data = data
    }

    public static let success = CommandResult(.success)
    public static func success(data: JSONValue) -> CommandResult { CommandResult(.success, data: data) }
    public static func failed(_ message: String) -> CommandResult { CommandResult(.commandFailed, message: message) }
}

/// The single reply every request gets, on `P/result` and on its MQTT 5 response topic.
public struct CommandReply: Sendable, Equatable {
    public var id: String?
    /// The command name as it arrived, even when it is not a known command.
    public var command: String
    public var result: CommandResult

    public init(id: String?, command: String, result: CommandResult) {
        self.id = id
        self.command = command
        self.result = result
    }

    public var json: JSONValue {
        [
            "id": JSONValue(id), "command": .string(command), "status": .string(result.status.rawValue),
            "code": .number(Double(result.status.code)), "message": JSONValue(result.message),
            "data": result.data ?? .null,
        ]
    }
}
