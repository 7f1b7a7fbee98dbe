import Logging
import MediaJSON
import Playback
import RemoteCommands

/// The listener's level and mute as commands: `changeVolume` and `mute` go straight to the output level,
/// and the level is kept across restarts.
struct ListenerVolume: Sendable {
    let level: OutputLevel
    /// `P/volume`, which the output level marks as it changes.
    let topic: VolumeTopic
    let memory: (any VolumeMemory)?
    let commandCenter: RemoteCommandCenter
    let logger: Logger

    func handleCommands() {
        let step = commandCenter.capabilities.volumeStep
        commandCenter.addHandler(for: .changeVolume) { [self] request in
            let volume: Double
            switch request {
            case let .level(value):
                await level.setVolume(value)
                volume = value
            case .up: volume = await level.stepVolume(by: step)
            case .down: volume = await level.stepVolume(by: -step)
            }
            await save(volume)
            return .success
        }
        commandCenter.addHandler(for: .mute) { [level] isMuted in
            CommandResult.result(await level.setMuted(isMuted))
        }
    }

    /// Gives the audio output the level an earlier run left; returns what `P/volume` then shows, which the
    /// node publishes with the rest of its initial state.
    func restore() async -> VolumeState {
        var saved = 1.0
        do {
            if let found = try await memory?.savedVolume(), found.isFinite { saved = found }
        } catch {
            logger.warning("could not read the saved volume, starting at 1.0: \(error)")
        }
        return await level.restore(volume: saved)
    }

    private func save(_ volume: Double) async {
        do {
            try await memory?.saveVolume(volume)
        } catch {
            // The level still applies now; only the next start would not have it.
            logger.warning("could not save the volume: \(error)")
        }
    }
}
