import MQTTTransport
import Testing

/// Telling a connection taken over by a client with the same id from one lost otherwise: the rule alone.
@Suite("Takeovers by a client with the same id")
struct TakeoverWatchTests {
    let start = ContinuousClock.now
    func at(_ seconds: Double) -> ContinuousClock.Instant { start + .milliseconds(Int(seconds * 1000)) }

    @Test("dropped, taken back at once, dropped again: a takeover; the waits double from 10 s to a minute; reported at once, then once a minute")
    func twins() {
        var watch = TakeoverWatch()
        watch.accepted(broker: 0, at: at(0))
        #expect(watch.lost(at: at(0.1), jitter: 1) == .lost)
        watch.accepted(broker: 0, at: at(0.3))
        #expect(watch.lost(at: at(0.5), jitter: 1) == .takenOver(wait: 10, report: .init(isFirst: true, takeovers: 1)))
        #expect(watch.isInConflict && watch.takeovers == 1)
        // The two take turns: each connection lives until the other's wait is over.
        var now = 0.5, wait = 10.0, waits = [10.0]
        var reports: [TakeoverWatch.Report] = []
        for _ in 0..<7 {
            now += wait
            watch.accepted(broker: 0, at: at(now))
            now += 5
            guard case let .takenOver(next, report) = watch.lost(at: at(now), jitter: 1) else {
                Issue.record("not a takeover at \(now) s")
                return
            }
            if let report { reports.append(report) }
            waits.append(next)
            wait = next
        }
        #expect(waits == [10, 20, 40, 60, 60, 60, 60, 60])
        // Takeovers at 15.5, 40.5, 85.5 s, then every 65 s: the first report after the start, at 85.5 s,
        // counts three; none comes within a minute of the one before.
        #expect(reports == [.init(isFirst: false, takeovers: 3)] + Array(repeating: .init(isFirst: false, takeovers: 1), count: 4))
        #expect(TakeoverWatch.wait(round: 1) == 10 && TakeoverWatch.wait(round: 30) == 60)
    }

    @Test("a broker restart (the first try refused) and a connection that lived for minutes are plain losses")
    func plainLosses() {
        var watch = TakeoverWatch()
        watch.accepted(broker: 0, at: at(0))
        #expect(watch.lost(at: at(1), jitter: 1) == .lost)
        watch.attemptFailed()
        watch.accepted(broker: 0, at: at(1.3))
        #expect(watch.lost(at: at(2), jitter: 1) == .lost)
        // Taken back at once, but then lived three minutes.
        watch.accepted(broker: 0, at: at(2.2))
        #expect(watch.lost(at: at(182.2), jitter: 1) == .lost)
        // Back at once on another broker (a fail-over): no sign either.
        watch.accepted(broker: 1, at: at(182.3))
        #expect(watch.lost(at: at(183), jitter: 1) == .lost)
        #expect(!watch.isInConflict && watch.takeovers == 0)
        // The broker saying so (MQTT 5's "session taken over") is enough on its own.
        watch.accepted(broker: 0, at: at(200))
        #expect(watch.lost(at: at(300), isCertain: true, jitter: 1) == .takenOver(wait: 10, report: .init(isFirst: true, takeovers: 1)))
    }

    @Test("a rejoin that found its will retained and is lost within minutes was taken over; a broker restarting fast is not")
    func foundWill() {
        var watch = TakeoverWatch()
        // The broker restarted within the first retry, as a test's broker can: back at once, lost 1.5 s later.
        watch.accepted(broker: 0, at: at(0))
        #expect(watch.lost(at: at(1), jitter: 1) == .lost)
        watch.accepted(broker: 0, at: at(1.2))
        #expect(watch.lost(at: at(2.7), jitter: 1) == .lost)
        #expect(!watch.isInConflict)
        // A will found at a first connection is the last run's.
        watch.accepted(broker: 0, at: at(100))
        watch.foundWill()
        #expect(watch.lost(at: at(110), jitter: 1) == .lost)
        // A node that has run for an hour is pushed off by a newcomer, comes back at once and finds the
        // newcomer's will; the newcomer, 12 s later, takes it back.
        watch.accepted(broker: 0, at: at(3600))
        #expect(watch.lost(at: at(3600.2), jitter: 1) == .lost)
        watch.accepted(broker: 0, at: at(3600.4))
        watch.foundWill()
        #expect(watch.lost(at: at(3612.4), jitter: 1) == .takenOver(wait: 10, report: .init(isFirst: true, takeovers: 1)))
    }

    @Test("a conflict ends when a connection outlives the other client's longest wait; the next loss is plain again")
    func conflictEnds() {
        var watch = TakeoverWatch()
        watch.accepted(broker: 0, at: at(0))
        _ = watch.lost(at: at(0.1), jitter: 1)
        watch.accepted(broker: 0, at: at(0.3))
        _ = watch.lost(at: at(0.5), jitter: 1)
        watch.accepted(broker: 0, at: at(10.5))
        let early = watch.settle(at: at(60))
        #expect(!early && watch.isInConflict)
        let outlived = watch.settle(at: at(131))
        #expect(outlived && !watch.isInConflict)
        let again = watch.settle(at: at(140))
        #expect(!again)
        #expect(watch.lost(at: at(200), jitter: 1) == .lost)
    }
}
