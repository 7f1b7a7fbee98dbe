import MQTTTransport
import Synchronization

/// Playback commands that have arrived and are not answered yet, so each gets exactly one reply in
/// bounded time even when the audio engine stalls (a GStreamer state change that never completes blocks
/// the playback lane; every command behind it would wait, and a client gives up after 5 s).
///
/// The lane answers a command when it has performed it. A command still unanswered `limit` after it
/// arrived is answered by `expire` instead: `commandFailed`, not performed if its turn had not come, and
/// its late result is then dropped. Whichever comes first answers; the other finds the entry gone.
final class ReplyDeadlines: Sendable {
    struct Entry: Sendable {
        var message: MQTTMessage
        var arrived: ContinuousClock.Instant
        /// The lane has begun performing it: a late answer says it may still take effect.
        var started = false
    }

    let limit: Duration
    private let state = Mutex<(next: UInt64, entries: [UInt64: Entry])>((0, [:]))
    /// Yields when a command arrives with none pending, so the watchdog sleeps while the node is idle.
    let becamePending: AsyncStream<Void>
    private let pendingContinuation: AsyncStream<Void>.Continuation

    init(limit: Duration) {
        self.limit = limit
        (becamePending, pendingContinuation) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(1))
    }

    /// Records an arrival; the ticket names it to `start`, `finish`.
    func admit(_ message: MQTTMessage) -> UInt64 {
        let now = ContinuousClock.now
        let (ticket, first) = state.withLock { state in
            state.next += 1
            state.entries[state.next] = Entry(message: message, arrived: now)
            return (state.next, state.entries.count == 1)
        }
        if first { pendingContinuation.yield() }
        return ticket
    }

    var isEmpty: Bool { state.withLock { $0.entries.isEmpty } }

    /// Ends `becamePending`, and with it the watchdog.
    func finishWatching() { pendingContinuation.finish() }

    /// The lane takes its turn on the command; false when it was already answered (and must not be performed).
    func start(_ ticket: UInt64) -> Bool {
        state.withLock { state in
            guard state.entries[ticket] != nil else { return false }
            state.entries[ticket]!.started = true
            return true
        }
    }

    /// The lane has its answer; false when the deadline answered first (the answer is dropped).
    func finish(_ ticket: UInt64) -> Bool {
        state.withLock { $0.entries.removeValue(forKey: ticket) != nil }
    }

    /// Takes out every command past its deadline at `now`, oldest first, for the caller to answer.
    func expire(at now: ContinuousClock.Instant) -> [Entry] {
        state.withLock { state in
            let overdue = state.entries.filter { now - $0.value.arrived >= limit }.sorted { $0.key < $1.key }
            for (ticket, _) in overdue { state.entries.removeValue(forKey: ticket) }
            return overdue.map(\.value)
        }
    }
}
