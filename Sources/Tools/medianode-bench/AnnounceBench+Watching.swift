import Dispatch
import Foundation
import MQTTTransport
import MediaJSON
import MediaNode
import Synchronization

// MARK: - Watching

/// When each stretch of a growing WAV arrived: (frames so far, monotonic ns), in order.
final class ArrivalLog: RenderObserver {
    private let log = Mutex<[(frames: Int, time: Int64)]>([])

    func observe(_ bytes: UnsafeRawBufferPointer) {
        let now = monotonicNanoseconds()
        log.withLock { log in log.append(((log.last?.frames ?? 0) + bytes.count / 4, now)) }
    }

    /// Frames that had arrived by `time`.
    func frames(before time: Int64) -> Int {
        log.withLock { log in log.last { $0.time <= time }?.frames ?? 0 }
    }

    /// When frame `frame` arrived.
    func arrival(ofFrame frame: Int) -> Int64? {
        log.withLock { log in log.first { $0.frames > frame }?.time }
    }
}

/// Stamps the arrival of each announcement event on `P/events`, on the network thread.
final class EventClock: @unchecked Sendable {
    let client: MQTTClient
    private let seen = Stamps()
    private let arrived = DispatchSemaphore(value: 0)

    init(url: BrokerURL, topic: String) throws {
        let seen = seen, arrived = arrived
        client = try MQTTClient(configuration: MQTTConfiguration(broker: url, clientID: "bench-events")) { message in
            let now = monotonicNanoseconds()
            guard let event = try? JSONValue(parsing: message.payload), let type = event["type"]?.stringValue,
                  let id = event["announcementId"]?.stringValue else { return }
            seen.times.withLock { $0["\(type) \(id)"] = now }
            arrived.signal()
        }
        client.start()
        try client.subscribe(topic, qos: 1)
    }

    /// Blocks until the event `type` about `id` has arrived; its arrival time, or nil after `timeout` s.
    func wait(for type: NodeEvent, id: String, timeout: Double) -> Int64? {
        let deadline = DispatchTime.now() + timeout
        while true {
            if let time = seen.times.withLock({ $0["\(type.rawValue) \(id)"] }) { return time }
            if arrived.wait(timeout: deadline) == .timedOut { return seen.times.withLock { $0["\(type.rawValue) \(id)"] } }
        }
    }
}

private final class Stamps: Sendable {
    let times = Mutex<[String: Int64]>([:])
}
