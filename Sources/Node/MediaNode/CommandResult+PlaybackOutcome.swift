import MediaJSON
import Playback
import RemoteCommands

extension CommandResult {
    /// The reply to a command whose outcome is the controller's.
    static func result(_ outcome: PlaybackOutcome, data: JSONValue? = nil) -> CommandResult {
        switch outcome {
        case .success: CommandResult(.success, data: data)
        case let .failed(failure): CommandResult(Self.status(of: failure), message: failure.message)
        }
    }

    static func languageResult(_ outcome: PlaybackOutcome, tag: String) -> CommandResult {
        if case .failed(.invalid) = outcome { return .failed("no such language option: \(tag)") }
        return result(outcome)
    }

    /// The status table of topics.md "Replies" (S4, S5 in docs/requirements.md).
    static func status(of failure: PlaybackFailure) -> CommandStatus {
        switch failure {
        case .nothingLoaded: .noActionableNowPlayingItem
        case .alreadyPlaying, .alreadyPaused, .invalid, .unplayable: .commandFailed
        case .noSuchContent: .noSuchContent
        case .deviceLost: .deviceNotFound
        }
    }
}
