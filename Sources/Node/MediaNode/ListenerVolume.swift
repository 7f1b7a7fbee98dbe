import Logging
import MediaJSON
import Playback
import RemoteCommands

/// The listener's level and mute: `changeVolume` and `mute`, the retained `P/volume` with the capability
/// parameters that show the same facts, and the level kept across restarts.
struct ListenerVolume: Sendable {
    let playback: PlaybackController
    let memory: (any VolumeMemory)?
    let commandCenter: RemoteCommandCenter
    let retained: RetainedPublisher
    let topic: String
    let logger: Logger

    func handleCommands() {
        let step = commandCenter.capabilities.volumeStep
        commandCenter.addHandler(for: .changeVolume) { [self] request in
            let level: Double
            switch request {
            case let .level(value):
                _ = await playback.setVolume(value)
                level = value
            case .up: level = await playback.stepVolume(by: step)
            case .down: level = await playback.stepVolume(by: -step)
            }
            await save(level)
            return .success
        }
        commandCenter.addHandler(for: .mute) { [playback] isMuted in
            CommandResult.result(await playback.setMuted(isMuted))
        }
    }

    /// Gives the audio output the level an earlier run left; returns the level it starts with.
    func restore() async -> Double {
        var level = 1.0
        do {
            if let saved = try await memory?.savedVolume(), saved.isFinite { level = min(1, max(0, saved)) }
        } catch {
            logger.warning("could not read the saved volume, starting at 1.0: \(error)")
        }
        await playback.setVolume(level)
        commandCenter.setParameter("volume", .number(level), for: RemoteCommand.changeVolume)
        commandCenter.setParameter("isMuted", false, for: RemoteCommand.mute)
        return level
    }

    private func save(_ level: Double) async {
        do {
            try await memory?.saveVolume(level)
        } catch {
            // The level still applies now; only the next start would not have it.
            logger.warning("could not save the volume: \(error)")
        }
    }

    /// `P/volume` and the capability parameters that show the same facts.
    func publish(_ level: Double, isMuted: Bool, speedGainDb: Double = 0) {
        // Rounded: the gain is a setting shown to people, not a measurement.
        let speed = (speedGainDb * 100).rounded() / 100
        retained.publish(
            topic, JSONValue.object(["volume": .number(level), "isMuted": .bool(isMuted), "speedGainDb": .number(speed)]).jsonBytes)
        commandCenter.setParameter("volume", .number(level), for: RemoteCommand.changeVolume)
        commandCenter.setParameter("isMuted", .bool(isMuted), for: RemoteCommand.mute)
    }
}
