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
    /// How far "up" and "down" move the level (`volumeStep`).
    let step: Double
    let logger: Logger

    /// `changeVolume`: a level, or a step up or down; the level is then saved for the next start.
    func change(_ request: VolumeRequest) async -> CommandResult {
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

    /// `mute`: the target state, never a toggle.
    func mute(_ isMuted: Bool) async -> CommandResult {
        CommandResult.result(await level.setMuted(isMuted))
    }

    /// `changeVolume`'s and `mute`'s parameters in `P/commands`, read from the output level as the document
    /// is made: the center keeps no copy of the level.
    var shownParameters: (volume: [String: JSONValue], mute: [String: JSONValue]) {
        let shown = level.shown
        return (["volume": .number(shown.volume)], ["isMuted": .bool(shown.isMuted)])
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
