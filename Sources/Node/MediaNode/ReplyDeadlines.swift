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
    /// How often pending commands are looked at: fine grained enough next to a deadline of seconds.
    static let lookInterval: Duration = .milliseconds(250)
    private let state = Mutex<(next: UInt64, entries: [UInt64: Entry])>((0, [:]))
    /// Answers the commands a look finds overdue: nil before `watch` (a command may arrive before the
    /// lanes run; its looks go on until they do) and after `finishWatching` (`isWatched` false then).
    private let answerOverdue = Mutex<(answer: (@Sendable ([Entry]) -> Void)?, isWatched: Bool)>((nil, true))

    init(limit: Duration) {
        self.limit = limit
    }

    /// From now on, each look hands the commands past their deadline to `answer`.
    func watch(_ answer: @escaping @Sendable ([Entry]) -> Void) { answerOverdue.withLock { $0.answer = answer } }

    /// Records an arrival; the ticket names it to `start`, `finish`.
    ///
    /// The first command pending asks for a look. Looks are calls on the coarse sweep, which a rig's
    /// thousand nodes share, and stop while nothing is pending: a node that gets a command a second used
    /// to wake a watchdog task and arm a timer of its own for each.
    func admit(_ message: MQTTMessage) -> UInt64 {
        let now = ContinuousClock.now
        let (ticket, first) = state.withLock { state in
            state.next += 1
            state.entries[state.next] = Entry(message: message, arrived: now)
            return (state.next, state.entries.count == 1)
        }
        if first { scheduleLook(from: now) }
        return ticket
    }

    private func scheduleLook(from now: ContinuousClock.Instant) {
        DeadlineSweep.coarse.call(at: now + Self.lookInterval) { [weak self] in self?.look() }
    }

    /// Answers what is overdue, and looks again while anything is pending (a command admitted meanwhile
    /// found entries there and asked for no look of its own).
    private func look() {
        let (answer, isWatched) = answerOverdue.withLock { $0 }
        guard isWatched else { return }
        let now = ContinuousClock.now
        if let answer {
            let overdue = expire(at: now)
            if !overdue.isEmpty { answer(overdue) }
        }
        if !isEmpty { scheduleLook(from: now) }
    }

    var isEmpty: Bool { state.withLock { $0.entries.isEmpty } }

    /// No more looks answer anything.
    func finishWatching() { answerOverdue.withLock { $0 = (nil, false) } }

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
