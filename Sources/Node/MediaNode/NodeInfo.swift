import ContentTree
import CoreMetrics
import Foundation
import Logging
import MediaJSON
import Synchronization

/// `P/info`: who the node is, and what its catalog cache holds. The only owner of the catalog counts,
/// which it rereads at start (the first `P/info` waits for them when there is a catalog, so it already
/// counts what is cached) and after every refresh.
final class NodeInfo: Sendable {
    private let identity: [String: JSONValue]
    private let libraries: [String]
    private let catalogs: [String]
    private let catalog: (any ContentCatalog)?
    private let retained: RetainedPublisher
    private let topic: String
    /// The catalog's playable items, for `P/metrics`.
    private let playables: CoreMetrics.Recorder
    private let logger: Logger
    private let counts = Mutex(Counts())

    /// Which read produced the counts: a slow read that started earlier never overwrites a newer one.
    private struct Counts {
        var nextTicket = 0
        var storedTicket = -1
        var summary: CatalogSummary?
    }

    init(configuration: NodeConfiguration, startedAt: Date, catalog: (any ContentCatalog)?, retained: RetainedPublisher,
         playables: CoreMetrics.Recorder, logger: Logger) {
        identity = [
            "nodeId": .string(configuration.nodeID),
            "version": .string(MediaNodeVersion.string),
            "startedAt": .string(Self.utcTimestamp(startedAt)),
            "mqttVersion": .string(configuration.protocolVersion.rawValue),
        ]
        libraries = configuration.libraries
        catalogs = configuration.catalogs
        self.catalog = catalog
        self.retained = retained
        topic = configuration.topics.info
        self.playables = playables
        self.logger = logger
    }

    /// Marks `P/info` with the counts known now.
    func publish() {
        var info = identity
        info["catalog"] = catalogDocument()
        retained.publish(topic, JSONValue.object(info).jsonBytes)
    }

    /// Reads the catalog's counts from the cache and republishes `P/info` when they changed.
    func refreshCatalogSummary() async {
        guard let catalog else { return }
        let ticket = counts.withLock { counts in
            defer { counts.nextTicket += 1 }
            return counts.nextTicket
        }
        do {
            let summary = try await catalog.summary()
            let stored = counts.withLock { counts in
                guard ticket > counts.storedTicket else { return false }
                counts.storedTicket = ticket
                counts.summary = summary
                return true
            }
            if stored {
                playables.record(summary.playables)
                publish()
            }
        } catch is CancellationError {
            return
        } catch {
            logger.warning("cannot read the catalog summary: \(error)")
            if retained.current(topic) == nil { publish() }
        }
    }

    /// The `catalog` object: what the node was told to serve and what its cache holds now.
    private func catalogDocument() -> JSONValue {
        var document: [String: JSONValue] = [
            "libraries": .array(libraries.map(JSONValue.string)),
            "catalogs": .array(catalogs.map(JSONValue.string)),
        ]
        if let summary = counts.withLock({ $0.summary }) {
            document["sources"] = .number(Double(summary.sources))
            document["containers"] = .number(Double(summary.containers))
            document["playables"] = .number(Double(summary.playables))
        }
        return .object(document)
    }

    /// ISO 8601 in UTC to the second (2026-11-25T15:20:16Z), by hand: ISO8601DateFormatter and even
    /// FoundationEssentials' `.iso8601` style look up the current time zone through ICU, which kept 3-6 MiB
    /// of ICU resident in every node for this one timestamp.
    static func utcTimestamp(_ date: Date) -> String {
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        var fields = tm()
        gmtime_r(&seconds, &fields)
        func padded(_ value: Int32, _ width: Int) -> String {
            let digits = String(value)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        return "\(padded(fields.tm_year + 1900, 4))-\(padded(fields.tm_mon + 1, 2))-\(padded(fields.tm_mday, 2))"
            + "T\(padded(fields.tm_hour, 2)):\(padded(fields.tm_min, 2)):\(padded(fields.tm_sec, 2))Z"
    }
}
