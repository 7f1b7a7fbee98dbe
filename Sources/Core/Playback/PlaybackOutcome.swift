/// The answer of every controller operation; the command layer turns it into a status (S4, S5).
public enum PlaybackOutcome: Sendable, Equatable {
    case success
    case failed(PlaybackFailure)

    public var isSuccess: Bool { self == .success }

    public var failure: PlaybackFailure? {
        if case let .failed(failure) = self { failure } else { nil }
    }
}

/// Why an operation did nothing. The mapping to command statuses (S4):
///
/// | failure | status |
/// |---|---|
/// | nothingLoaded | noActionableNowPlayingItem (110) |
/// | alreadyPlaying, alreadyPaused, invalid, unplayable | commandFailed (200), with `message` |
/// | noSuchContent | noSuchContent (100) |
/// | deviceLost | deviceNotFound (120) |
public enum PlaybackFailure: Error, Sendable, Equatable, CustomStringConvertible {
    /// Nothing is current: the queue is empty, was stopped, or played past its end.
    case nothingLoaded
    /// play while playing (S5).
    case alreadyPlaying
    /// pause while paused (S5).
    case alreadyPaused
    /// The request makes no sense here (a position beyond the end, a seek in a live stream, ...).
    case invalid(String)
    /// The item, or every item in the queue, could not be played.
    case unplayable(String)
    /// The request named an item that is not the current one.
    case noSuchContent(String)
    /// The audio output is gone.
    case deviceLost(String)

    public var message: String {
        switch self {
        case .nothingLoaded: "nothing is loaded"
        case .alreadyPlaying: "already playing"
        case .alreadyPaused: "already paused"
        case let .invalid(message), let .unplayable(message), let .noSuchContent(message),
            let .deviceLost(message):
            message
        }
    }

    public var description: String { message }

    /// What an engine error means for the operation that hit it.
    init(_ error: AudioError) {
        switch error.kind {
        case .device: self = .deviceLost(error.message)
        case .item, .engine: self = .unplayable(error.message)
        }
    }
}
