import MediaJSON
import Playback
import RemoteCommands

/// `P/volume` and the capability parameters that show the same facts: the output level's own topic,
/// marked in the level's change, before it returns, so a command's reply never overtakes it.
struct VolumeTopic: Sendable {
    let retained: RetainedPublisher
    let topic: String
    let commandCenter: RemoteCommandCenter
    let capabilities: CapabilitiesPublisher

    func show(_ state: VolumeState) {
        // Rounded: the gain is a setting shown to people, not a measurement.
        let speed = (state.speedGainDb * 100).rounded() / 100
        retained.publish(
            topic,
            JSONValue.object([
                "volume": .number(state.volume), "isMuted": .bool(state.isMuted), "speedGainDb": .number(speed),
            ]).jsonBytes)
        commandCenter.setParameter("volume", .number(state.volume), for: RemoteCommand.changeVolume)
        commandCenter.setParameter("isMuted", .bool(state.isMuted), for: RemoteCommand.mute)
        capabilities.mark()
    }
}
