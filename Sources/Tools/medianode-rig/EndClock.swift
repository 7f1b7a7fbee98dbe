import Foundation
import Synchronization

/// When each simulated output's current item ends, on one clock for the whole rig.
///
/// An output moves its item's end on every load, play, pause and seek. A task sleeping until each end
/// and cancelled by the next command costs a task and a timer per command, and a cancelled sleep stays
/// in dispatch's timer heap until its deadline, minutes away for a track: with a thousand nodes the heap
/// held tens of thousands of dead timers and dispatch's timer thread took a tenth of the rig's CPU. One
/// task that looks at every armed end 20 times a second costs microseconds a look; an end comes up to
/// 50 ms late, as an output's end-of-stream message is late, and well inside what the driver allows.
final class EndClock: Sendable {
    static let shared = EndClock()
    static let tick: Duration = .milliseconds(50)

    private struct Armed {
        var due: Double
        var generation: Int
        weak var engine: SimulatedAudioEngine?
    }

    private let armed = Mutex<[ObjectIdentifier: Armed]>([:])
    private let ticker = Mutex<Task<Void, Never>?>(nil)

    /// Ends `engine`'s item at `due` (seconds since 1970), unless it is armed again or disarmed first.
    func arm(_ engine: SimulatedAudioEngine, at due: Double, generation: Int) {
        armed.withLock { $0[ObjectIdentifier(engine)] = Armed(due: due, generation: generation, engine: engine) }
        ticker.withLock { ticker in
            guard ticker == nil else { return }
            ticker = Task.detached { [self] in
                while !Task.isCancelled {
                    try? await Task.sleep(for: Self.tick)
                    endDue(now: Date().timeIntervalSince1970)
                }
            }
        }
    }

    func disarm(_ engine: SimulatedAudioEngine) {
        _ = armed.withLock { $0.removeValue(forKey: ObjectIdentifier(engine)) }
    }

    /// Outside the lock: an ended item starts the next one, which arms its end here.
    private func endDue(now: Double) {
        let due = armed.withLock { armed -> [(SimulatedAudioEngine, Int)] in
            let keys = armed.compactMap { $0.value.due <= now ? $0.key : nil }
            return keys.compactMap { key in
                armed.removeValue(forKey: key).flatMap { entry in entry.engine.map { ($0, entry.generation) } }
            }
        }
        for (engine, generation) in due { engine.itemEnded(generation: generation) }
    }
}
