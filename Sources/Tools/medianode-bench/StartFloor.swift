import ArgumentParser
import ContentTree
import Foundation
import GRDB
import Logging
import MQTTTransport

/// The floor of the content benchmark's start-up figure, run as a process of its own: a bare client that
/// connects to the broker, reads the root's first page from the same catalog file by hand, publishes a
/// status, a capabilities document and that page retained, and exits once the broker has them all.
struct StartFloor: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "start-floor", abstract: "The bare process start the content benchmark compares the node's with.",
        shouldDisplay: false)

    @Option var broker: String
    @Option var prefix: String
    @Option var database: String

    func run() async throws {
        // Quiet, as the node it stands beside runs with --log-level warning.
        var logger = Logger(label: "medianode-bench.start-floor")
        logger.logLevel = .warning
        let client = try MQTTClient(
            configuration: MQTTConfiguration(
                broker: try BrokerURL(parsing: broker), clientID: "floor-\(UUID().uuidString.prefix(8))"),
            logger: logger)
        client.start()
        var configuration = Configuration()
        configuration.readonly = true
        let rows = try DatabaseQueue(path: database, configuration: configuration).read { db in
            try Row.fetchAll(db, sql: """
                SELECT item.identifier, item.title, item.isContainer FROM child
                JOIN item ON item.identifier = child.identifier
                WHERE child.parent = ? ORDER BY child.position LIMIT 100
                """, arguments: [ContentItem.rootIdentifier])
        }
        let children: [[String: Any]] = rows.map {
            ["identifier": $0["identifier"] as String? ?? "", "title": $0["title"] as String? ?? "",
             "isContainer": ($0["isContainer"] as Bool?) ?? false]
        }
        let root = try JSONSerialization.data(withJSONObject: ["indexPath": [], "children": children])
        for await event in client.events {
            if case .connected = event { break }
        }
        for (topic, payload) in [("status", Array("online".utf8)), ("commands", Array(#"{"commands":{}}"#.utf8)),
                                 ("content/tree", Array(root))] {
            try await client.publishAndWait(topic: "\(prefix)/\(topic)", payload: payload, retain: true)
        }
        await client.shutdown()
    }
}
