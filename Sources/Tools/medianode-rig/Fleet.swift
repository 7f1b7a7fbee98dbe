import CatalogStore
import Foundation
import Logging
import MQTTTransport
import MediaNode
import NodeMetrics

/// The rig's nodes: each the real `Node` on its own MQTT client, catalog and simulated output.
final class Fleet: Sendable {
    /// Where each node keeps its catalog and state.
    enum Storage: String, Sendable, CaseIterable {
        /// A copy of the template file each, as a daemon keeps its own: about a dozen descriptors a node.
        case file
        /// A copy in memory each (SQLite's own, the same queries and writes): no descriptor at all, so
        /// that tens of thousands of nodes fit one process's limit of open files.
        case memory

        /// Descriptors a node holds, its MQTT socket included (measured with 300 nodes: 13.8).
        var descriptorsPerNode: UInt64 { self == .file ? 16 : 1 }
    }

    struct Member: Sendable {
        let node: Node
        let run: Task<Void, Never>
        let catalog: CatalogDatabase
    }

    let members: [Member]

    private init(members: [Member]) { self.members = members }

    /// Starts one node per id. Node `i` prefers broker `i mod count` and fails over to the others in turn.
    ///
    /// Every MQTT connection is started first, on `eventLoop`'s threads or else each on its own, and the
    /// catalogs open once they are up (or the wait runs out), so a node says it is online as soon as it
    /// runs. `progress` hears how far each phase got.
    static func start(eventLoop: MQTTEventLoop?, nodeIDs: [String], prefix: String, brokers: [BrokerURL], protocolVersion: MQTTProtocolVersion,
                      template: String, storage: Storage, directory: URL, lengths: [String: Double], metricsInterval: Duration? = nil,
                      progress: (_ phase: String, _ done: Int) -> Void) async throws -> Fleet {
        var connections: [(NodeConfiguration, MQTTClient, Logger, NodeMetricsBackend?)] = []
        var connecting: [MQTTClient] = []
        var pacing = true
        var lastAccepted = ContinuousClock.now
        for (index, id) in nodeIDs.enumerated() {
            // A few connections at a time: mosquitto listens with a backlog of 100, and a connection whose
            // SYN finds the queue full waits a second for its retry, holding up every client on its
            // event-loop thread (a connect blocks). Unpaced, 10,000 nodes took 25 s to connect the first 200.
            // A broker that stops accepting (full, refusing) ends the pacing after 5 s without a connection,
            // not the start: the wait below reports how many got through.
            while pacing, connecting.count >= Self.connectingAtOnce {
                let waiting = connecting.count
                connecting.removeAll(where: \.isConnected)
                if connecting.count < waiting { lastAccepted = .now }
                if ContinuousClock.now - lastAccepted > .seconds(5) { pacing = false }
                if pacing, connecting.count >= Self.connectingAtOnce { try await Task.sleep(for: .milliseconds(2)) }
            }
            let path = directory.appendingPathComponent("\(id).sqlite").path
            if storage == .file {
                try FileManager.default.copyItem(atPath: template, toPath: path)
                try FileManager.default.copyItem(
                    atPath: NodeStateFile.path(besideCatalog: template), toPath: NodeStateFile.path(besideCatalog: path))
            }
            let first = index % brokers.count
            let order = Array(brokers[first...] + brokers[..<first])
            var configuration = NodeConfiguration(
                broker: order[0], fallbackBrokers: Array(order.dropFirst()), nodeID: id, prefix: "\(prefix)/\(id)",
                protocolVersion: protocolVersion, databasePath: path, audioSink: "simulated")
            configuration.metrics.interval = metricsInterval
            // A backend per node, not one process-wide: each node's P/metrics counts its own.
            let metrics = metricsInterval == nil ? nil : NodeMetricsBackend()
            let logger = Logger(label: "medianode-rig.\(id)")
            // The prefix in the client id too: two rigs on one broker, each under its own prefix, have the same
            // node ids, and the broker would let each node's connection take over the other's.
            var mqtt = configuration.mqttConfiguration(metrics: metrics)
            mqtt.clientID = "medianode-\(Self.clientIDSafe(prefix))-\(id)"
            let transport = try MQTTClient(configuration: mqtt, logger: logger, eventLoop: eventLoop)
            transport.start()
            connecting.append(transport)
            connections.append((configuration, transport, logger, metrics))
            progress("connecting", connections.count)
        }
        let deadline = ContinuousClock.now + .seconds(max(10, Double(nodeIDs.count) * 0.05))
        // Only the clients still connecting are looked at again: a look at all of 10,000 every few
        // milliseconds took the core their connections needed.
        while ContinuousClock.now < deadline {
            connecting.removeAll(where: \.isConnected)
            progress("connected", connections.count - connecting.count)
            if connecting.isEmpty { break }
            try await Task.sleep(for: .milliseconds(20))
        }
        var members: [Member] = []
        members.reserveCapacity(nodeIDs.count)
        let original = storage == .memory ? try CatalogDatabase(path: template, integrityCheck: .skipped) : nil
        defer { try? original?.close() }
        let originalState = try original.map { try NodeStateFile.inMemory(beside: $0) }
        for (configuration, transport, logger, metrics) in connections {
            let catalog: CatalogDatabase
            let stateFile: NodeStateFile
            if let original, let originalState {
                catalog = try CatalogDatabase.inMemory(copying: original, standingFor: configuration.databasePath, logger: logger)
                stateFile = try NodeStateFile.inMemory(copying: originalState, beside: catalog)
            } else {
                // Written a moment ago by this process: the full check would only slow a large rig's start.
                catalog = try CatalogDatabase(path: configuration.databasePath, integrityCheck: .skipped, logger: logger)
                stateFile = try await NodeStateFile.beside(catalog, logger: logger)
            }
            let node = Node(configuration: configuration, transport: transport,
                            engine: SimulatedAudioEngine(lengths: lengths), catalog: catalog, stateFile: stateFile,
                            metrics: metrics, logger: logger)
            members.append(Member(node: node, run: Task { await node.run() }, catalog: catalog))
            progress("opening catalogs", members.count)
        }
        return Fleet(members: members)
    }

    /// Connections begun and not yet accepted, at most.
    static let connectingAtOnce = 64

    /// A prefix as it may stand in a client id: letters, digits, `-` and `_`, the rest as `_`.
    static func clientIDSafe(_ prefix: String) -> String {
        String(prefix.unicodeScalars.map { scalar in
            scalar.isASCII && (CharacterSet.alphanumerics.contains(scalar) || scalar == "-" || scalar == "_")
                ? Character(scalar) : "_"
        })
    }

    /// Every node says `offline` and disconnects, as on SIGTERM. The catalogs stay open: a node's last
    /// saves (its position, the tree after them) finish after its run, and the process ends next anyway.
    func shutdown() async {
        await withTaskGroup(of: Void.self) { group in
            for member in members {
                group.addTask {
                    await member.node.shutdown()
                    await member.run.value
                }
            }
        }
    }
}
