import ContentTree
import Downloads
import Logging
import MediaJSON
import Playback

// MARK: - P/context

/// Follows `P/context` from the vehicle: the content limits (S22), `networkMetered` for downloads and
/// `vehicleSpeed` for the speed gain; a malformed context is ignored and reported.
struct ContextFollower: Sendable {
    let content: NodeContent?
    let level: OutputLevel?
    let downloads: DownloadManager?
    let speedGain: VehicleSpeedGain
    let events: EventPublisher
    let logger: Logger

    func apply(_ payload: [UInt8]) async {
        let document = try? JSONValue(parsing: payload)
        if let downloads, case let .object(fields)? = document, case let .bool(metered)? = fields["networkMetered"] {
            downloads.setMetered(metered)
        }
        if let level, let document, let gain = speedGain.gainDb(for: document) {
            await level.setSpeedGain(gain)
        }
        guard let content else { return }
        do {
            let document = try JSONValue(parsing: payload)
            let limits = try ContentLimits(context: document, previous: await content.manager.limits)
            _ = try await content.manager.setLimits(limits)
        } catch {
            logger.warning("ignored a context message: \(error)")
            events.publish(.error, ["message": .string("context: \(error)")])
        }
    }
}
