import Foundation

/// The time source of the controller: wall-clock timestamps for now playing and sleeps for the
/// seek-hold timer. Injected so tests drive time by hand.
public protocol PlaybackClock: Sendable {
    /// Seconds since the Unix epoch (now playing's `timestamp`).
    func now() -> Double
    /// Suspends for `seconds`; throws `CancellationError` when the task is cancelled.
    func sleep(for seconds: Double) async throws
}

/// Real time.
public struct SystemPlaybackClock: PlaybackClock {
    public init() {}

    public func now() -> Double { Date().timeIntervalSince1970 }

    public func sleep(for seconds: Double) async throws {
        try await Task.sleep(for: .seconds(seconds))
    }
}
