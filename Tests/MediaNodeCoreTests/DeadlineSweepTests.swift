@testable import MediaNode
import Synchronization
import Testing

/// The one task that ends many waits: each wait ends at its deadline, not before, and a cancelled one at once.
@Suite("Deadline sweep")
struct DeadlineSweepTests {
    @Test("waits end at their deadlines and not before, and a cancelled wait ends at once")
    func deadlines() async {
        let sweep = DeadlineSweep(tick: .milliseconds(20))
        let clock = ContinuousClock()
        let start = clock.now
        let ended = await withTaskGroup(of: (Double, Duration).self) { group in
            for seconds in [0.1, 0.3, 0.2, 0.05] {
                group.addTask {
                    await sweep.sleep(for: .seconds(seconds))
                    return (seconds, clock.now - start)
                }
            }
            var ended: [(Double, Duration)] = []
            for await result in group { ended.append(result) }
            return ended
        }
        // How late is the machine's business (a busy pool runs the sweep late); never early is the sweep's.
        for (seconds, took) in ended {
            #expect(took >= .seconds(seconds), "ended before its deadline: \(seconds) s after \(took)")
        }
        #expect(ended.count == 4)
        #expect(sweep.waiting == 0)

        let cancelled = Task { await sweep.sleep(for: .seconds(30)) }
        let asked = clock.now
        while sweep.waiting == 0, clock.now - asked < .seconds(10) { try? await Task.sleep(for: .milliseconds(5)) }
        #expect(sweep.waiting == 1)
        let cancelledAt = clock.now
        cancelled.cancel()
        await cancelled.value
        #expect(clock.now - cancelledAt < .seconds(10), "a 30 s wait ended by its cancel, not by its deadline")
        #expect(sweep.waiting == 0)
    }

    @Test("a call runs once, at its deadline and not before, and may ask for the next")
    func calls() async {
        let sweep = DeadlineSweep(tick: .milliseconds(20))
        let clock = ContinuousClock()
        let start = clock.now
        let times = await withCheckedContinuation { (done: CheckedContinuation<[Duration], Never>) in
            let seen = Mutex<[Duration]>([])
            @Sendable func look() {
                let count = seen.withLock { seen in
                    seen.append(clock.now - start)
                    return seen.count
                }
                if count < 3 {
                    sweep.call(at: start + .milliseconds(100 * (count + 1)), look)
                } else {
                    done.resume(returning: seen.withLock { $0 })
                }
            }
            sweep.call(at: start + .milliseconds(100), look)
        }
        #expect(times.count == 3)
        for (index, took) in times.enumerated() {
            #expect(took >= .milliseconds(100 * (index + 1)), "call \(index) came early, after \(took)")
        }
        // The sweep stops once nothing is due: a later call starts it again.
        let again = await withCheckedContinuation { (done: CheckedContinuation<Bool, Never>) in
            sweep.call(at: clock.now) { done.resume(returning: true) }
        }
        #expect(again)

        // A cancelled call is never made.
        let made = Mutex(false)
        let cancelled = sweep.call(at: clock.now + .milliseconds(50)) { made.withLock { $0 = true } }
        sweep.cancelCall(cancelled)
        try? await Task.sleep(for: .milliseconds(200))
        #expect(!made.withLock { $0 })
    }
}
