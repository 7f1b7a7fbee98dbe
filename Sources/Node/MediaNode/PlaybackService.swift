import Playback
import ServiceLifecycle

/// The audio engine and the playback controller that turns its facts into state. Stops after the
/// observers and before the transport: the observers save where the item stands (S31) and republish the
/// lists showing it, then the audio stops, all before the node says `offline`.
struct PlaybackService: Service {
    /// Opens once the listener's volume is restored, before the controller follows the engine.
    let ready: Latch
    let playback: PlaybackController
    let engine: any AudioEngine
    /// Told before the audio stops at shutdown.
    let observers: [any PlaybackObserver]

    func run() async throws {
        let isGraceful = await withDiscardingTaskGroup(returning: Bool.self) { [ready, playback] group in
            group.addTask {
                await ready.wait()
                await playback.run()
            }
            defer { group.cancelAll() }
            do {
                try await gracefulShutdown()
                return true
            } catch {
                return false
            }
        }
        guard isGraceful else { return }
        for observer in observers { await observer.audioStopping() }
        await engine.shutdown()
    }
}
