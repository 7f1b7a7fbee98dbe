/// What a download did, for the node to publish.
public enum DownloadEvent: Sendable, Hashable {
    /// Status or progress changed (progress at most once a second per item).
    case changed(String)
    case finished(identifier: String, bytes: Int64)
    case failed(identifier: String, message: String)
}

/// Why a finished transfer is not accepted as a copy.
public enum DownloadError: Error, Hashable, CustomStringConvertible {
    case status(Int)
    case notAudio(String)
    case length(expected: Int64, stored: Int64)
    case empty

    public var description: String {
        switch self {
        case let .status(code): "the server answered HTTP \(code)"
        case let .notAudio(type): "the server sent \(type), not audio"
        case let .length(expected, stored): "the copy holds \(stored) bytes, the server announced \(expected)"
        case .empty: "the server sent no audio (an empty body)"
        }
    }
}
