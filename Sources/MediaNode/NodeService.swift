import Logging
import ServiceLifecycle

/// Runs the node as a long-running service: on graceful shutdown (SIGTERM, SIGINT) it says `offline`
/// and disconnects cleanly.
public struct NodeService: Service {
    public let node: Node

    public init(node: Node) { self.node = node }

    public func run() async throws {
        await withGracefulShutdownHandler {
            await node.run()
        } onGracefulShutdown: {
            Task { await node.shutdown() }
        }
    }
}
