import Synchronization

/// A failure that repeats while its cause lasts (a full disk fails every save until space comes back):
/// told when an episode starts and when it ends, so it is logged once per episode, not once per attempt.
final class FailureEpisode: Sendable {
    private let isFailing = Mutex(false)

    /// Records a failure; true when it starts an episode.
    func failed() -> Bool {
        isFailing.withLock { failing in
            defer { failing = true }
            return !failing
        }
    }

    /// Records a success; true when it ends an episode.
    func succeeded() -> Bool {
        isFailing.withLock { failing in
            defer { failing = false }
            return failing
        }
    }
}
