import CMosquitto
import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Serves many clients' connections from a few threads (libmosquitto's external loop: each client's
/// socket in an epoll set, `mosquitto_loop_read`/`write` when it is ready, `mosquitto_loop_misc` once a
/// second for keep-alive), instead of a thread per client. For a process that holds thousands of
/// connections (the fleet rig); a daemon with one connection keeps its own thread.
///
/// A client is given to one of the loop's threads for its life; connecting, reconnecting with back-off,
/// fail-over and fail-back to the first broker follow the same rules as on a client's own thread. A
/// connection attempt blocks its thread for the TCP connect, which is immediate on a local broker.
public final class MQTTEventLoop: Sendable {
    private let shards: [Shard]
    private let nextShard = Atomic<Int>(0)

    /// - Parameter threads: how many threads serve the connections (at least one).
    public init(threads: Int) throws(MQTTError) {
        var shards: [Shard] = []
        for index in 0..<max(1, threads) { shards.append(try Shard(index: index)) }
        self.shards = shards
        for shard in shards { shard.start() }
    }

    /// The thread a new client is served on: each in turn.
    func shard() -> Shard {
        shards[nextShard.wrappingAdd(1, ordering: .relaxed).oldValue % shards.count]
    }

    /// Stops the threads once every client on them is shut down (their connections are left as they are).
    public func shutdown() {
        for shard in shards { shard.post(.stop) }
    }

    enum Request: Sendable {
        case attach(MQTTClient)
        case write(MQTTClient)
        case detach(MQTTClient)
        case stop
    }

    /// One thread with its epoll set and the clients it serves.
    final class Shard: Sendable {
        let index: Int
        private let epoll: Int32
        private let wakeUp: WakeUpPipe
        private let inbox = Mutex<[Request]>([])

        init(index: Int) throws(MQTTError) {
            self.index = index
            epoll = epoll_create1(Int32(EPOLL_CLOEXEC))
            guard epoll >= 0 else {
                throw .library(call: "epoll_create1", code: errno, message: String(cString: strerror(errno)))
            }
            wakeUp = try WakeUpPipe()
            var event = epoll_event()
            event.events = EPOLLIN.rawValue
            event.data.fd = wakeUp.readEnd
            _ = epoll_ctl(epoll, EPOLL_CTL_ADD, wakeUp.readEnd, &event)
        }

        func start() {
            let thread = Thread { [self] in run() }
            thread.name = "mqtt-loop-\(index)"
            thread.start()
        }

        /// Hands a request to the thread and wakes it (one byte however many are waiting).
        func post(_ request: Request) {
            let wasEmpty = inbox.withLock { inbox in
                defer { inbox.append(request) }
                return inbox.isEmpty
            }
            if wasEmpty { wakeUp.signal() }
        }

        // MARK: - The thread

        /// What the thread knows of one client. Touched only on the thread.
        private final class Slot {
            let client: MQTTClient
            var rotation: BrokerRotation
            var socket: Int32 = -1
            var brokerIndex = 0
            var wantsWrite = false
            var connectDue: ContinuousClock.Instant?
            var nextMisc: ContinuousClock.Instant
            var nextProbe: ContinuousClock.Instant
            var generation = 0

            init(client: MQTTClient, now: ContinuousClock.Instant) {
                self.client = client
                rotation = BrokerRotation(count: client.configuration.brokers.count)
                connectDue = now
                nextMisc = now
                nextProbe = now
            }
        }

        private func run() {
            var slots: [ObjectIdentifier: Slot] = [:]
            var bySocket: [Int32: Slot] = [:]
            var events = [epoll_event](repeating: epoll_event(), count: 512)
            var nextSweep = ContinuousClock.now
            let me = pthread_self()
            var stopping = false

            func watch(_ slot: Slot) {
                let wants = mosquitto_want_write(slot.client.handle)
                guard slot.socket >= 0, wants != slot.wantsWrite else { return }
                slot.wantsWrite = wants
                var event = epoll_event()
                event.events = EPOLLIN.rawValue | (wants ? EPOLLOUT.rawValue : 0)
                event.data.fd = slot.socket
                _ = epoll_ctl(epoll, EPOLL_CTL_MOD, slot.socket, &event)
            }

            /// The connection ended (lost, refused, or left on purpose): when to try which broker next.
            func ended(_ slot: Slot, now: ContinuousClock.Instant) {
                if slot.socket >= 0 {
                    // Closed by libmosquitto already, which takes it out of the set; the number may be reused.
                    bySocket.removeValue(forKey: slot.socket)
                    slot.socket = -1
                }
                guard !slot.client.isShuttingDown else { return }
                let (accepted, failingBack, takeoverWait) = slot.client.takeConnectionOutcome()
                if failingBack {
                    slot.rotation.failBack()
                    slot.connectDue = now + .seconds(1)
                    return
                }
                if let takeoverWait {
                    // Taken over: the other client keeps the connection meanwhile (see `TakeoverWatch`).
                    _ = accepted ? slot.rotation.lost() : slot.rotation.failed()
                    slot.connectDue = now + .milliseconds(Int(takeoverWait * 1000))
                    return
                }
                switch accepted ? slot.rotation.lost() : slot.rotation.failed() {
                case .tryNow: slot.connectDue = now
                case let .wait(round): slot.connectDue = now + .milliseconds(Int(slot.client.backoff(attempt: round) * 1000))
                }
            }

            func connect(_ slot: Slot, now: ContinuousClock.Instant) {
                slot.connectDue = nil
                let index = slot.rotation.current
                let code = slot.client.connect(to: index)
                let socket = mosquitto_socket(slot.client.handle)
                guard code == Int32(MOSQ_ERR_SUCCESS.rawValue), socket >= 0 else {
                    slot.client.noteProblem("cannot reach broker \(slot.client.configuration.brokers[index]): \(Mosquitto.describe(code))")
                    ended(slot, now: now)
                    return
                }
                slot.brokerIndex = index
                slot.socket = socket
                slot.generation = slot.client.beginConnection()
                slot.nextProbe = now + slot.client.configuration.failbackInterval
                slot.nextMisc = now + .seconds(1)
                slot.wantsWrite = mosquitto_want_write(slot.client.handle)
                var event = epoll_event()
                event.events = EPOLLIN.rawValue | (slot.wantsWrite ? EPOLLOUT.rawValue : 0)
                event.data.fd = socket
                _ = epoll_ctl(epoll, EPOLL_CTL_ADD, socket, &event)
                bySocket[socket] = slot
            }

            /// Whether the connection is still up after a call of libmosquitto's loop.
            func stillUp(_ slot: Slot, _ code: Int32) -> Bool {
                code == Int32(MOSQ_ERR_SUCCESS.rawValue) && mosquitto_socket(slot.client.handle) >= 0
            }

            while !(stopping && slots.isEmpty) {
                let count = epoll_wait(epoll, &events, Int32(events.count), 100)
                var now = ContinuousClock.now
                for index in 0..<Int(max(0, count)) {
                    let fd = events[index].data.fd
                    if fd == wakeUp.readEnd {
                        wakeUp.drain()
                        continue
                    }
                    guard let slot = bySocket[fd] else { continue }
                    let flags = events[index].events
                    if flags & (EPOLLIN.rawValue | EPOLLERR.rawValue | EPOLLHUP.rawValue) != 0 {
                        guard stillUp(slot, mosquitto_loop_read(slot.client.handle, 1)) else {
                            ended(slot, now: now)
                            continue
                        }
                    }
                    if flags & EPOLLOUT.rawValue != 0 || mosquitto_want_write(slot.client.handle) {
                        guard stillUp(slot, mosquitto_loop_write(slot.client.handle, 1)) else {
                            ended(slot, now: now)
                            continue
                        }
                    }
                    watch(slot)
                }

                for request in inbox.withLock({ inbox in defer { inbox = [] }; return inbox }) {
                    switch request {
                    case let .attach(client):
                        client.networkThread.store(me, ordering: .relaxed)
                        let slot = Slot(client: client, now: now)
                        slots[ObjectIdentifier(client)] = slot
                        connect(slot, now: now)
                    case let .write(client):
                        client.writeRequested.store(false, ordering: .relaxed)
                        guard let slot = slots[ObjectIdentifier(client)], slot.socket >= 0 else { continue }
                        guard stillUp(slot, mosquitto_loop_write(client.handle, 1)) else {
                            ended(slot, now: now)
                            continue
                        }
                        watch(slot)
                    case let .detach(client):
                        if let slot = slots.removeValue(forKey: ObjectIdentifier(client)), slot.socket >= 0 {
                            // A clean DISCONNECT, so the broker drops the will.
                            // The loop's thread does not wait for the broker's close as a client's own thread
                            // does: one slow broker would hold every other client on the thread.
                            let kept = client.disconnectKeepingSocket()
                            if kept >= 0 { close(kept) }
                            if mosquitto_socket(client.handle) >= 0 {
                                _ = epoll_ctl(epoll, EPOLL_CTL_DEL, slot.socket, nil)
                            }
                            bySocket.removeValue(forKey: slot.socket)
                        }
                        client.threadFinished.signal()
                    case .stop:
                        stopping = true
                    }
                }

                now = ContinuousClock.now
                guard now >= nextSweep else { continue }
                nextSweep = now + .milliseconds(100)
                for slot in slots.values {
                    if slot.socket < 0 {
                        if let due = slot.connectDue, due <= now { connect(slot, now: now) }
                        continue
                    }
                    guard now >= slot.nextMisc else { continue }
                    slot.nextMisc = now + .seconds(1)
                    guard stillUp(slot, mosquitto_loop_misc(slot.client.handle)) else {
                        ended(slot, now: now)
                        continue
                    }
                    slot.client.askAgainForRefusedSubscriptions()
                    if slot.brokerIndex != 0, !slot.client.isShuttingDown {
                        if slot.client.state.withLock({ $0.firstBrokerAnswers && !$0.isFailingBack }) {
                            slot.client.leaveForFirstBroker(from: slot.brokerIndex)
                            if mosquitto_socket(slot.client.handle) < 0 {
                                ended(slot, now: now)
                                continue
                            }
                        } else if now >= slot.nextProbe {
                            slot.nextProbe = now + slot.client.configuration.failbackInterval
                            slot.client.probeFirstBroker(generation: slot.generation)
                        }
                    }
                    watch(slot)
                }
            }
        }
    }
}
