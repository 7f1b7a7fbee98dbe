import Dispatch
import Foundation
import MQTTTransport
import MediaNode

/// One plain client under the node's prefix: keeps every retained page of the content tree (to find what
/// to browse and ask for) and counts the replies on P/result, so requests can be sent a few at a time.
///
/// Threading: the handler runs on libmosquitto's network thread; the state is behind a lock.
final class MemoryObserver: @unchecked Sendable {
    let client: MQTTClient
    let prefix: String
    private let inbox: Inbox

    /// What the network thread writes and the bench reads.
    private final class Inbox: @unchecked Sendable {
        /// Signalled once per reply on P/result: every command gets exactly one there.
        let replies = DispatchSemaphore(value: 0)
        let lock = NSLock()
        var topics: [String: [UInt8]] = [:]
    }

    init(brokerURL: String, prefix: String) throws {
        self.prefix = prefix
        let result = TopicLayout(prefix: prefix).result
        let inbox = Inbox()
        self.inbox = inbox
        client = try MQTTClient(
            configuration: MQTTConfiguration(broker: try BrokerURL(parsing: brokerURL), clientID: "memory-observer")
        ) { message in
            if message.topic == result {
                inbox.replies.signal()
            } else {
                inbox.lock.withLock { inbox.topics[message.topic] = message.payload }
            }
        }
        client.start()
        try client.subscribe("\(prefix)/#", qos: 1)
    }

    /// Waits up to `seconds` for the next reply on P/result. Blocks: call it off Swift's pool.
    func waitForReply(seconds: Double) -> Bool { inbox.replies.wait(timeout: .now() + seconds) == .success }

    /// Forgets replies already counted, e.g. to a command sent before a run of requests.
    func drainReplies() {
        while inbox.replies.wait(timeout: .now()) == .success {}
    }

    func payload(_ topic: String) -> [UInt8]? { inbox.lock.withLock { inbox.topics["\(prefix)/\(topic)"] } }

    /// Waits (polling) until `ready` holds, or throws after `timeout`.
    func waitUntil(_ what: String, timeout: Duration = .seconds(60), _ ready: () -> Bool) async throws {
        let deadline = ContinuousClock.now + timeout
        while !ready() {
            guard ContinuousClock.now < deadline else { throw BenchError("timed out waiting for \(what)") }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    /// True once the node's status, capabilities and tree root are retained and `page` lists children.
    func retainedStatePublished(page: String) -> Bool {
        payload("status") == Array("online".utf8) && payload("commands") != nil && payload("content/tree") != nil
            && !children(of: page).isEmpty
    }

    /// The children listed on the retained page at `topic` (relative to the prefix).
    func children(of topic: String) -> [[String: Any]] {
        guard let bytes = payload(topic),
              let page = try? JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any]
        else { return [] }
        return page["children"] as? [[String: Any]] ?? []
    }

    /// Every index path and identifier on the retained tree pages.
    func tree() -> (paths: [[Int]], identifiers: [String]) {
        let treeTopics = inbox.lock.withLock { inbox.topics.keys.filter { $0.hasPrefix(TopicLayout(prefix: prefix).contentTree) } }
        var paths: [[Int]] = []
        var identifiers: [String] = []
        for topic in treeTopics {
            let relative = String(topic.dropFirst(prefix.count + 1))
            paths.append(relative.split(separator: "/").dropFirst(2).compactMap { Int($0) })
            identifiers += children(of: relative).compactMap { $0["identifier"] as? String }
        }
        return (paths.sorted { $0.count < $1.count }, identifiers)
    }
}
