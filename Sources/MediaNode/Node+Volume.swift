import MediaJSON
import Playback
import RemoteCommands

// MARK: - Volume and mute: `changeVolume`, `mute` and the retained `P/volume`

extension Node {
    func registerVolumeCommands(_ playback: PlaybackController) {
        let step = configuration.capabilities.volumeStep
        commandCenter.addHandler(for: .changeVolume) { [weak self] request in
            let level: Double
            switch request {
            case let .level(value):
                _ = await playback.setVolume(value)
                level = value
            case .up: level = await playback.stepVolume(by: step)
            case .down: level = await playback.stepVolume(by: -step)
            }
            await self?.saveVolume(level)
            return .success
        }
        commandCenter.addHandler(for: .mute) { isMuted in
            Self.result(await playback.setMuted(isMuted))
        }
    }

    /// Gives the audio output the level an earlier run left; returns the level it starts with.
    func restoreVolume() async -> Double {
        guard let playback else { return 1 }
        var level = 1.0
        do {
            if let saved = try await volumeMemory?.savedVolume(), saved.isFinite { level = min(1, max(0, saved)) }
        } catch {
            logger.warning("could not read the saved volume, starting at 1.0: \(error)")
        }
        await playback.setVolume(level)
        commandCenter.setParameter("volume", .number(level), for: RemoteCommand.changeVolume)
        commandCenter.setParameter("isMuted", false, for: RemoteCommand.mute)
        return level
    }

    func saveVolume(_ level: Double) async {
        do {
            try await volumeMemory?.saveVolume(level)
        } catch {
            // The level still applies now; only the next start would not have it.
            logger.warning("could not save the volume: \(error)")
        }
    }

    /// `P/volume` and the capability parameters that show the same facts.
    func publishVolume(_ level: Double, isMuted: Bool, speedGainDb: Double = 0) {
        // Rounded: the gain is a setting shown to people, not a measurement.
        let speed = (speedGainDb * 100).rounded() / 100
        retained.publish(
            topics.volume,
            JSONValue.object(["volume": .number(level), "isMuted": .bool(isMuted), "speedGainDb": .number(speed)]).jsonBytes)
        commandCenter.setParameter("volume", .number(level), for: RemoteCommand.changeVolume)
        commandCenter.setParameter("isMuted", .bool(isMuted), for: RemoteCommand.mute)
    }
}
