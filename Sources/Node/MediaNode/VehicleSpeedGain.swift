import Logging
import MediaJSON
import Playback

/// Reads `vehicleSpeed` from each `P/context` and hands the controller the gain that covers road noise.
///
/// Each context replaces the last, so one without `vehicleSpeed` means 0 dB. A reading that is no speed
/// (negative, not finite, above 1,000 km/h, not a number) counts as none: the gain falls back to 0 dB,
/// the safe side, and the refusal is logged once per episode of bad readings, since a faulty sender
/// repeats itself many times a second.
final class VehicleSpeedGain: Sendable {
    let volume: SpeedVolume
    private let badReadings = FailureEpisode()
    private let logger: Logger

    init(dbPer100: Double, logger: Logger) {
        volume = SpeedVolume(dbPer100: dbPer100)
        self.logger = logger
    }

    var isEnabled: Bool { volume.dbPer100 > 0 }

    /// The gain a context message asks for, dB; nil when the feature is off or the message is no object.
    func gainDb(for context: JSONValue) -> Double? {
        guard isEnabled, let fields = context.objectValue else { return nil }
        guard let value = fields["vehicleSpeed"], value != .null else {
            _ = badReadings.succeeded()
            return 0
        }
        if let speed = value.numberValue, let gain = volume.gainDb(atSpeed: speed) {
            if badReadings.succeeded() { logger.info("context: vehicleSpeed readable again (\(speed) km/h)") }
            return gain
        }
        if badReadings.failed() {
            let shown = String(decoding: value.jsonBytes.prefix(40), as: UTF8.self)
            logger.warning(
                "context: ignored vehicleSpeed \(shown): not a speed in km/h (0...\(Int(SpeedVolume.maximumSpeed))); the speed gain is 0 dB until one comes")
        }
        return 0
    }
}
