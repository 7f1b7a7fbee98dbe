import DBusBinding
import Logging
import ServiceLifecycle

/// The node on D-Bus as an MPRIS 2.2 media player (`--mpris session|system`): a second front door to the
/// same command center.
///
/// Owns the GLib main loop GDBus needs, on a thread of its own, and the presence on the bus: registered once
/// the node is ready, registered again whenever the bus comes back, left on graceful shutdown. Placed last
/// in the node's group, so it stops first: no D-Bus call reaches a node that has stopped taking commands.
public struct MPRISService: Service {
    public let bus: BusAddress
    public let busName: String
    let object: MPRISPlayerObject
    /// Returns once the node takes commands and shows its initial state.
    let ready: @Sendable () async -> Void
    let logger: Logger

    public init(bus: BusAddress, nodeID: String, object: MPRISPlayerObject, ready: @escaping @Sendable () async -> Void,
                logger: Logger) {
        self.bus = bus
        self.busName = MPRISNames.busName(nodeID: nodeID)
        self.object = object
        self.ready = ready
        self.logger = logger
    }

    public func run() async throws {
        let (object, logger) = (object, logger)
        let loop = BusLoop(name: "medianode.mpris")
        let presence: BusPresence
        do {
            presence = try BusPresence(
                address: bus, name: busName, path: MPRISNames.objectPath,
                introspection: MPRISMember.introspection(of: MPRISMember.all), handler: object, loop: loop,
                logger: logger)
        } catch {
            logger.error("MPRIS is off: \(error)")
            await loop.stop()
            // A service that returns ends the group: the node runs on without MPRIS.
            try? await gracefulShutdown()
            return
        }
        await cancelWhenGracefulShutdown { [ready] in
            await ready()
            object.attach(presence)
            object.refresh()
            presence.start()
            await withDiscardingTaskGroup { group in
                group.addTask { for await _ in object.wakes { object.refresh() } }
                group.addTask { for await seconds in object.seeks { object.emit(.seeked(toSeconds: seconds)) } }
                group.addTask {
                    for await event in presence.events {
                        if case .registered = event { logger.debug("MPRIS registered as \(presence.name)") }
                    }
                }
            }
        }
        object.finish()
        object.attach(nil)
        await presence.stop()
        await loop.stop()
        object.artwork.removeAll()
    }
}
