import Logging
import MQTTTransport
import Synchronization

/// The node's retained state and the one path by which it reaches the broker.
///
/// A change only records the new payload and marks its topic dirty (MPD's idle mask); `flush` sends each
/// dirty topic once, with the payload it has by then, so a burst of changes to one topic is one message.
/// The flush runs in `run()` whenever something became dirty, and before every reply, so a command's
/// effect on retained state is on the broker before its answer. After a reconnect everything is sent
/// again (the broker may have restarted without persistence); while disconnected changes only record.
final class RetainedPublisher: Sendable {
    private let transport: any MessageTransport
    private let logger: Logger
    private let state = Mutex(State())
    /// Remembers the topics `remembers` selects across restarts, when the node has a memory for them.
    private let book: RetainedTopicBook?
    private let remembers: @Sendable (String) -> Bool
    private let wake: AsyncStream<Void>
    private let wakeContinuation: AsyncStream<Void>.Continuation
    /// Told when one of their topics is marked (MPRIS follows the documents it shows), outside the lock.
    private let watchers = Mutex<[(topics: Set<String>, changed: @Sendable () -> Void)]>([])

    private struct State {
        var published: [String: [UInt8]] = [:]
        /// Topics changed since the last flush, in the order they were first marked; a clear is an empty payload.
        var dirty: [String] = []
        var isDirty: Set<String> = []
        /// Documents rendered at flush time (the capability document: rendered once per burst, not per change).
        var renderers: [String: @Sendable () -> [UInt8]] = [:]
        var isConnected = false
        /// Leftovers of an earlier run to clear once connected.
        var pendingClears: Set<String> = []
        /// Commands being performed whose replies flush (see `holdWakes`), and since when.
        var holds = 0
        var heldSince = ContinuousClock.Instant.now
    }

    /// How long a command's hold keeps marks from waking the loop: a command's work takes milliseconds;
    /// one stuck in the audio engine is answered by its deadline (a flush) and leaves others' marks
    /// waiting no longer than this.
    static let longestHold: Duration = .seconds(1)

    init(transport: any MessageTransport, logger: Logger, book: RetainedTopicBook? = nil,
         remembers: @escaping @Sendable (String) -> Bool = { _ in false }) {
        self.transport = transport
        self.logger = logger
        self.book = book
        self.remembers = remembers
        (wake, wakeContinuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    // MARK: - Marking

    /// Records `payload` for `topic` and marks it dirty unless the topic already holds exactly these bytes.
    func publish(_ topic: String, _ payload: [UInt8]) {
        let (changed, isNew, wakes) = state.withLock { state -> (Bool, Bool, Bool) in
            guard state.published[topic] != payload else { return (false, false, false) }
            let isNew = state.published.updateValue(payload, forKey: topic) == nil
            state.pendingClears.remove(topic)
            return (true, isNew, Self.mark(topic, in: &state))
        }
        if changed, isNew, remembers(topic) { book?.published(topic) }
        if wakes { wakeContinuation.yield() }
        notifyWatchers(of: topic)
    }

    /// Marks `topic` dirty with a document `render` makes at flush time.
    func publish(_ topic: String, rendering render: @escaping @Sendable () -> [UInt8]) {
        let wakes = state.withLock { state in
            state.renderers[topic] = render
            return Self.mark(topic, in: &state)
        }
        if wakes { wakeContinuation.yield() }
        notifyWatchers(of: topic)
    }

    /// Sends `topic`'s current payload again at the next flush, even though it did not change (a
    /// subscriber that lost it asked: Home Assistant's birth message).
    func republish(_ topic: String) {
        let wakes = state.withLock { state in
            guard state.published[topic] != nil else { return false }
            return Self.mark(topic, in: &state)
        }
        if wakes { wakeContinuation.yield() }
    }

    /// Clears a retained topic that no longer applies (an empty retained message).
    func clear(_ topic: String) {
        let (existed, wakes) = state.withLock { state -> (Bool, Bool) in
            guard state.published.removeValue(forKey: topic) != nil else { return (false, false) }
            return (true, Self.mark(topic, in: &state))
        }
        guard existed else { return }
        if remembers(topic) { book?.cleared(topic) }
        if wakes { wakeContinuation.yield() }
        notifyWatchers(of: topic)
    }

    /// Clears topics an earlier run left retained, except those published again since; while
    /// disconnected they wait for the next `connected`. Returns the topics it clears.
    @discardableResult
    func clearLeftovers(_ topics: Set<String>) -> Set<String> {
        let cleared = state.withLock { state in
            let leftovers = topics.filter { state.published[$0] == nil }
            state.pendingClears.formUnion(leftovers)
            for topic in leftovers.sorted() { _ = Self.mark(topic, in: &state) }
            return leftovers
        }
        for topic in cleared where remembers(topic) { book?.cleared(topic) }
        if !cleared.isEmpty { wakeContinuation.yield() }
        return cleared
    }

    /// Calls `changed` whenever one of `topics` is marked (a new payload, a document to render, a clear).
    /// It runs on the marking thread and must return at once.
    func watch(_ topics: Set<String>, _ changed: @escaping @Sendable () -> Void) {
        watchers.withLock { $0.append((topics, changed)) }
    }

    private func notifyWatchers(of topic: String) {
        for watcher in watchers.withLock({ $0 }) where watcher.topics.contains(topic) { watcher.changed() }
    }

    /// True when this made a clean state dirty: only then is the run loop woken. While topics are dirty a
    /// wake is already owed (by whoever dirtied it first) or a flush is about to take them, so a command
    /// that marks five topics wakes the loop once, not five times.
    private static func mark(_ topic: String, in state: inout State) -> Bool {
        let wasClean = state.dirty.isEmpty
        guard state.isDirty.insert(topic).inserted else { return false }
        state.dirty.append(topic)
        return wasClean && !(state.holds > 0 && .now - state.heldSince < longestHold)
    }

    /// A command that is about to change state and then flush before its reply: until `releaseWakes`, what
    /// is marked waits for that flush instead of waking the loop, which would run for nothing on another
    /// thread while the reply is on its way (a wake and a task switch for every playback command).
    func holdWakes() {
        state.withLock { state in
            if state.holds == 0 { state.heldSince = .now }
            state.holds += 1
        }
    }

    /// The command's reply has flushed, or will not: anything marked since goes out with the loop.
    func releaseWakes() {
        let wakes = state.withLock { state in
            state.holds -= 1
            return state.holds == 0 && !state.dirty.isEmpty
        }
        if wakes { wakeContinuation.yield() }
    }

    // MARK: - Flushing

    /// Sends every dirty topic once, in the order they were first marked. Safe from any thread; sent under
    /// the lock, so two flushes never interleave and an older payload never overtakes a newer one.
    func flush() {
        state.withLock { state in
            guard state.isConnected, !state.dirty.isEmpty else { return }
            let dirty = state.dirty
            state.dirty = []
            state.isDirty = []
            for topic in dirty { sendCurrent(topic, in: &state) }
        }
    }

    /// Flushes whenever something became dirty, until `finish` or cancellation. The book reads what the
    /// earlier run left, then records what is published beside it, so a slow disk never holds up what
    /// subscribers see.
    func run() async {
        guard let book else {
            for await _ in wake {
                flush()
                if Task.isCancelled { break }
            }
            return
        }
        let (flushed, recorder) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        async let recording: Void = {
            await book.load()
            for await _ in flushed { await book.flush() }
            await book.flush()
        }()
        for await _ in wake {
            flush()
            // Most flushes add or clear no topic the book keeps: its task is woken only for those that do.
            if book.hasPending { recorder.yield() }
            if Task.isCancelled { break }
        }
        recorder.finish()
        await recording
    }

    func finish() { wakeContinuation.finish() }

    /// Marks the transport down: changes are recorded and sent on the next `connected`.
    func disconnected() {
        state.withLock { $0.isConnected = false }
    }

    /// Sends every retained topic, e.g. after a (re)connect. `first` go out before the rest, in order
    /// (S19: capabilities before the content tree).
    func connected(first: [String]) {
        state.withLock { state in
            state.isConnected = true
            state.dirty = []
            state.isDirty = []
            for (topic, render) in state.renderers { state.published[topic] = render() }
            for topic in first { if let payload = state.published[topic] { send(topic, payload) } }
            for (topic, payload) in state.published.sorted(by: { $0.key < $1.key }) where !first.contains(topic) {
                send(topic, payload)
            }
            for topic in state.pendingClears.sorted() where state.published[topic] == nil { send(topic, []) }
            state.pendingClears = []
        }
    }

    func current(_ topic: String) -> [UInt8]? { state.withLock { $0.published[topic] } }

    /// Sends what `topic` holds now: its rendered document, its payload, or a clear.
    private func sendCurrent(_ topic: String, in state: inout State) {
        if let render = state.renderers[topic] {
            let payload = render()
            guard state.published[topic] != payload else { return }
            state.published[topic] = payload
            send(topic, payload)
        } else if let payload = state.published[topic] {
            send(topic, payload)
        } else {
            state.pendingClears.remove(topic)
            send(topic, [])
        }
    }

    private func send(_ topic: String, _ payload: [UInt8]) {
        do {
            try transport.publish(topic: topic, payload: payload, qos: 1, retain: true,
                                  properties: MQTTProperties(contentType: Self.contentType(of: payload)))
        } catch {
            // Kept in `published`, so the next reconnect sends it.
            logger.debug("retained \(topic) not sent now (\(error)); it goes out on reconnect")
        }
    }

    static func contentType(of payload: [UInt8]) -> String? {
        guard let first = payload.first else { return nil }
        if first == UInt8(ascii: "{") || first == UInt8(ascii: "[") { return "application/json" }
        if payload.starts(with: [0xFF, 0xD8, 0xFF]) { return "image/jpeg" }
        if payload.starts(with: [0x89, 0x50, 0x4E, 0x47]) { return "image/png" }
        return nil
    }
}
