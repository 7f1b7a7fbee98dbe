import Foundation
import MQTTTransport
import MediaJSON
import Synchronization

/// What the driver has seen of one node: its retained topics and the replies it waits for.
struct WatchedNode {
    var isOnline = false
    /// Whether the node said `online` while the driver listened (a retained copy from an earlier run does not count).
    var saidOnline = false
    var nowPlaying: JSONValue?
    var volume: JSONValue?
    /// The node's last `P/metrics`, the newest by its timestamp.
    var metrics: JSONValue?
    /// When a volume document last reached the driver. (A now-playing document tells by its `timestamp`
    /// when the node made it, which says more: a cluster member may deliver one made long before.)
    var volumeArrivedAt: ContinuousClock.Instant?
    /// Whether the node's now playing and volume reached the driver live, as the node published them.
    var heardLive = false
    var waiting: [String: Waiter] = [:]
}

/// A command sent and not answered yet: who waits for the reply, and until when.
struct Waiter {
    var continuation: CheckedContinuation<Answer?, Never>
    var deadline: ContinuousClock.Instant
}

/// A reply, and how long it took from the moment its command left the driver to the moment the reply
/// reached the driver's network thread: the node's time and the broker's, not the driver's own queue.
struct Answer: Sendable {
    var reply: JSONValue
    var milliseconds: Double
}

/// The command carries its send time in its `id` (`<id>@<monotonic ns>`), which the reply echoes: the
/// latency is taken where the reply arrives, from the stamp of the very copy it answers (a copy sent again
/// has a stamp of its own), as load generators such as emqtt-bench stamp their payloads.
enum SendStamp {
    static func now() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }

    static func stamped(_ id: String, at nanoseconds: UInt64) -> String { "\(id)@\(nanoseconds)" }

    /// The id as sent without its stamp, and the stamp.
    static func split(_ stamped: String) -> (id: String, sentAt: UInt64?) {
        guard let at = stamped.lastIndex(of: "@") else { return (stamped, nil) }
        return (String(stamped[..<at]), UInt64(stamped[stamped.index(after: at)...]))
    }
}

/// Every node's view, shared with the clients' network threads.
final class Watched: Sendable {
    let state: Mutex<[String: WatchedNode]>
    /// Nodes online now, and nodes that said so while the driver listened: kept as they change (under
    /// `state`'s lock), since counting 10,000 nodes every few milliseconds held that lock from the network
    /// threads.
    let onlineNodes = Atomic<Int>(0)
    let saidOnlineNodes = Atomic<Int>(0)
    /// The last `P/metrics` of nodes under the prefix that are not the rig's own (a daemon beside it): the
    /// report shows them stale too, while nothing else of theirs is driven or checked.
    let others = Mutex<[String: JSONValue]>([:])
    init(_ nodes: [String: WatchedNode]) { state = Mutex(nodes) }

    /// Called with `state` locked.
    func markSaidOnline(_ node: String, in state: inout [String: WatchedNode]) {
        guard state[node]?.saidOnline == false else { return }
        state[node]?.saidOnline = true
        saidOnlineNodes.add(1, ordering: .relaxed)
    }
}

/// The rig's client side: one MQTT client per broker, watching every node's status, now playing, volume
/// and replies, and sending commands to the node through the broker it was given.
///
/// Inbound messages are taken on the clients' network threads and only update `watched`, so a thousand
/// nodes' traffic costs the driver a dictionary write per message.
final class Driver: Sendable {
    let prefix: String
    let nodeIDs: [String]
    let clients: [MQTTClient]
    let watched: Watched
    private let indexByID: [String: Int]
    /// Ends the waits that ran out (see `send`).
    private let sweeper = Mutex<Task<Void, Never>?>(nil)
    static let sweepInterval: Duration = .milliseconds(250)

    init(prefix: String, nodeIDs: [String], brokers: [BrokerURL], protocolVersion: MQTTProtocolVersion) throws {
        self.prefix = prefix
        self.nodeIDs = nodeIDs
        indexByID = Dictionary(uniqueKeysWithValues: nodeIDs.enumerated().map { ($1, $0) })
        let watched = Watched(Dictionary(uniqueKeysWithValues: nodeIDs.map { ($0, WatchedNode()) }))
        self.watched = watched
        let head = prefix + "/"
        var clients: [MQTTClient] = []
        let filters = Dictionary(uniqueKeysWithValues: Self.watchedTopics.map { ("\(prefix)/+/\($0)", 1) })
        for index in brokers.indices {
            // Each client prefers its own broker and fails over to the others, as the nodes do; the
            // subscriptions are made again on every connection.
            let configuration = MQTTConfiguration(
                brokers: Array(brokers[index...] + brokers[..<index]), clientID: "medianode-rig-driver-\(getpid())-\(index)",
                protocolVersion: protocolVersion, reconnectDelay: (1, 2), subscriptions: filters)
            clients.append(try MQTTClient(configuration: configuration) { message in
                Driver.take(message, head: head, watched: watched)
            })
        }
        self.clients = clients
    }

    static let watchedTopics = ["status", "nowplaying", "volume", "result", "metrics"]

    func start() {
        for client in clients { client.start() }
        let watched = watched
        sweeper.withLock { sweeper in
            sweeper = Task {
                while !Task.isCancelled {
                    try? await Task.sleep(for: Self.sweepInterval)
                    Self.endOverdueWaits(in: watched, now: .now)
                }
            }
        }
    }

    func shutdown() async {
        sweeper.withLock { $0?.cancel() }
        for client in clients { await client.shutdown() }
    }

    /// A timer task per command would leave a dead timer in dispatch's heap for every answered command
    /// (a cancelled sleep stays there until its deadline): one look every quarter second costs less, and
    /// a timeout of seconds does not need finer.
    private static func endOverdueWaits(in watched: Watched, now: ContinuousClock.Instant) {
        let overdue = watched.state.withLock { state -> [CheckedContinuation<Answer?, Never>] in
            var overdue: [CheckedContinuation<Answer?, Never>] = []
            // In place, by index: no copy of the keys, no lookup, for every node four times a second.
            var index = state.values.startIndex
            while index != state.values.endIndex {
                if !state.values[index].waiting.isEmpty {
                    for (id, waiter) in state.values[index].waiting where waiter.deadline <= now {
                        state.values[index].waiting.removeValue(forKey: id)
                        overdue.append(waiter.continuation)
                    }
                }
                state.values.formIndex(after: &index)
            }
            return overdue
        }
        for continuation in overdue { continuation.resume(returning: nil) }
    }

    private static func take(_ message: MQTTMessage, head: String, watched: Watched) {
        guard message.topic.hasPrefix(head) else { return }
        let rest = message.topic.dropFirst(head.count).split(separator: "/", omittingEmptySubsequences: false)
        guard rest.count == 2 else { return }
        let node = String(rest[0])
        switch rest[1] {
        case "status":
            let online = message.payload.elementsEqual("online".utf8)
            let live = !message.retain
            watched.state.withLock { state in
                // A retained `online` an earlier run left behind says nothing about this node.
                guard let wasOnline = state[node]?.isOnline, live || !online || state[node]?.saidOnline == true else { return }
                state[node]?.isOnline = online
                if wasOnline != online { watched.onlineNodes.add(online ? 1 : -1, ordering: .relaxed) }
                if online { watched.markSaidOnline(node, in: &state) }
            }
        case "nowplaying":
            let value = try? JSONValue(parsing: message.payload)
            watched.state.withLock { state in
                guard Self.isCurrent(message, state[node]) else { return }
                // Every client hears every node, and a cluster member that stalled (or a retained copy it
                // serves on a new subscription) delivers late: an older document must not replace a newer one.
                if let held = state[node]?.nowPlaying?["timestamp"]?.numberValue,
                   let arriving = value?["timestamp"]?.numberValue, arriving < held { return }
                state[node]?.nowPlaying = value
                if !message.retain { state[node]?.heardLive = true }
            }
        case "volume":
            let value = try? JSONValue(parsing: message.payload)
            watched.state.withLock { state in
                guard Self.isCurrent(message, state[node]) else { return }
                state[node]?.volume = value
                state[node]?.volumeArrivedAt = .now
                if !message.retain { state[node]?.heardLive = true }
            }
        case "metrics":
            guard let value = try? JSONValue(parsing: message.payload) else { return }
            // ISO 8601 in UTC compares as text: a late copy from a lagging member never wins.
            func isNewer(than held: JSONValue?) -> Bool {
                guard let held = held?["timestamp"]?.stringValue, let arriving = value["timestamp"]?.stringValue else { return true }
                return arriving >= held
            }
            let isOwn = watched.state.withLock { state in
                guard state[node] != nil else { return false }
                if isNewer(than: state[node]?.metrics) { state[node]?.metrics = value }
                return true
            }
            if !isOwn { watched.others.withLock { if isNewer(than: $0[node]) { $0[node] = value } } }
        case "result":
            let arrived = SendStamp.now()
            guard let reply = try? JSONValue(parsing: message.payload), let stamped = reply["id"]?.stringValue else { return }
            let (id, sentAt) = SendStamp.split(stamped)
            let milliseconds = sentAt.map { Double(arrived &- $0) / 1e6 } ?? .nan
            let waiter = watched.state.withLock { state in
                // A node that answers is online, even if its `online` reached the driver only as a retained
                // copy (a cluster member may deliver it so after the driver's subscription moved).
                watched.markSaidOnline(node, in: &state)
                return state[node]?.waiting.removeValue(forKey: id)
            }
            waiter?.continuation.resume(returning: Answer(reply: reply, milliseconds: milliseconds))
        default:
            break
        }
    }

    /// A retained copy comes from the broker's store when a client subscribes (again, after moving to
    /// another member): a cluster member that lagged may serve one older than what the driver has heard
    /// live, and a `{"state":"stopped"}` carries no timestamp to tell. Live copies are the node's own.
    private static func isCurrent(_ message: MQTTMessage, _ node: WatchedNode?) -> Bool {
        guard let node else { return false }
        return !message.retain || !node.heardLive
    }

    /// Every node's last `P/metrics`, the rig's own in their order, then the others heard under the prefix.
    var latestMetrics: [(id: String, metrics: JSONValue?)] {
        let own = watched.state.withLock { state in nodeIDs.map { ($0, state[$0]?.metrics) } }
        let others = watched.others.withLock { $0 }.sorted { $0.key < $1.key }.map { ($0.key, Optional($0.value)) }
        return own + others
    }

    var onlineCount: Int { watched.onlineNodes.load(ordering: .relaxed) }
    var saidOnlineCount: Int { watched.saidOnlineNodes.load(ordering: .relaxed) }

    func snapshot(of node: String) -> WatchedNode? {
        watched.state.withLock { state in
            guard var copy = state[node] else { return nil }
            copy.waiting = [:]
            return copy
        }
    }

    /// Sends `command` to `node` and returns its reply, or nil when none came within `timeout`.
    func send(_ command: String, _ payload: JSONValue, to node: String, id: String, timeout: Duration) async -> Answer? {
        var body = payload.objectValue ?? [:]
        let client = clients[(indexByID[node] ?? 0) % clients.count]
        let deadline = ContinuousClock.now + timeout
        return await withCheckedContinuation { continuation in
            watched.state.withLock { $0[node]?.waiting[id] = Waiter(continuation: continuation, deadline: deadline) }
            // Stamped last, right before it leaves.
            body["id"] = .string(SendStamp.stamped(id, at: SendStamp.now()))
            let bytes = JSONValue.object(body).jsonBytes
            do {
                try client.publish(topic: "\(prefix)/\(node)/cmd/\(command)", payload: bytes, qos: 1)
            } catch {
                // Not sent: counted as lost when its wait runs out, as a command the broker dropped is.
            }
        }
    }
}
