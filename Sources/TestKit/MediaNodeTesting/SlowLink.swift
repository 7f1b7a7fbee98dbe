import Foundation
import MediaNodeFixtures

/// A slow network between a client and a broker (Tests/Fixtures/slow_link_proxy.py in a child process):
/// each side's bytes, and its end of the connection, reach the other side `delay` later.
public final class SlowLink: @unchecked Sendable {
    private let child: FixtureServerProcess

    /// Where clients connect to reach the broker through the link.
    public var url: String { "mqtt://127.0.0.1:\(child.port)" }

    public init(to broker: MosquittoBroker, delay: Duration) async throws {
        child = try await FixtureServerProcess(
            script: FixtureServerProcess.scriptPath("slow_link_proxy.py", environmentKey: "MEDIANODE_SLOW_LINK"))
        let seconds = Double(delay.components.seconds) + Double(delay.components.attoseconds) / 1e18
        _ = await child.send(["op": "upstream", "port": broker.port, "delay": seconds])
    }

    public func stop() { child.stop() }
}
