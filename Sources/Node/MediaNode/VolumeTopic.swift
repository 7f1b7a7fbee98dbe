import MediaJSON
import Playback

/// `P/volume`: the output level's own topic, marked in the level's change, before it returns, so a
/// command's reply never overtakes it. `P/commands`, whose `volume` and `isMuted` are read from the level
/// as it is made, is marked with it.
struct VolumeTopic: Sendable {
    let retained: RetainedPublisher
    let topic: String
    let capabilities: CapabilitiesPublisher

    func show(_ state: VolumeState) {
        // Rounded: the gain is a setting shown to people, not a measurement.
        let speed = (state.speedGainDb * 100).rounded() / 100
        retained.publish(
            topic,
            JSONValue.object([
                "volume": .number(state.volume), "isMuted": .bool(state.isMuted), "speedGainDb": .number(speed),
            ]).jsonBytes)
        capabilities.mark()
    }
}
