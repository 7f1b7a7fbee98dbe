// MARK: - What the engine holds: the current load and its gapless successor

/// Loads the queue's items into the engine and keeps account of each load: its token, whether it has
/// produced audio, what its stream said (tags, duration), its loudness, the item preloaded to follow it
/// without a gap, and who waits for it to start. Facts stamped with a token it does not hold are stale.
///
/// It decides nothing about the transport (playing or paused, where the position is): the playback
/// controller does, and calls it inside its turns. Threading: lives in the controller's isolation (not
/// `Sendable`); its async methods run on the controller.
final class ItemLoader {
    let engine: any AudioEngine
    let queue: QueueController
    let level: OutputLevel
    private var lastTokenValue: UInt64 = 0
    /// The token of the load that is current; facts for other tokens are stale.
    private(set) var current: PlaybackToken?
    /// Whether the current load has produced audio (streamStarted seen).
    private(set) var isStarted = false
    /// Whether the current load is refilling its buffer after it ran dry (a stall), until it is full again.
    private var isStalled = false
    /// The item the engine will switch to gaplessly, by original index.
    private var preloaded: (token: PlaybackToken, originalIndex: Int)?
    /// An original index whose preload failed; not preloaded again until the current item changes.
    private var preloadRefused: Int?
    /// What the current load's stream reported, and its length (nil: unknown or live).
    var tags = StreamTags()
    var duration: Double?
    /// The track loudness (LUFS) of each load and preload, by token, for now playing.
    private var loudness: [PlaybackToken: Double] = [:]
    /// Told once the current load produces audio, or why it never will.
    private var startWaiters: [@Sendable (PlaybackOutcome) -> Void] = []
    /// Items that failed in a row while playing, since the last one that started.
    var consecutiveFailures = 0

    init(engine: any AudioEngine, queue: QueueController, level: OutputLevel) {
        self.engine = engine
        self.queue = queue
        self.level = level
    }

    // MARK: - Reading

    var isLoaded: Bool { current != nil }

    /// The loudness of the item now playing, as now playing shows it.
    var currentLoudness: Double? { current.flatMap { loudness[$0] } }

    func isPreloaded(_ token: PlaybackToken) -> Bool { preloaded?.token == token }

    // MARK: - Loading

    /// Loads `item` (the queue's current one) at `position` with its gapless successor named, at `rate`,
    /// and starts it if `play`. Whoever waited for the load it replaces is told it was replaced.
    nonisolated(nonsending) func load(_ item: QueueItem, at position: Double, rate: Double, play: Bool)
        async throws(AudioError)
    {
        resolveStartWaiters(.failed(.invalid("replaced before it started")))
        let token = nextToken()
        current = token
        isStarted = false
        preloaded = nil
        preloadRefused = nil
        tags = StreamTags()
        duration = item.duration
        let next = queue.preloadTarget(following: item, refused: preloadRefused).map { target in
            let next = NextItem(uri: queue.queue.items[target].uri, token: nextToken())
            preloaded = (next.token, target)
            return next
        }
        loudness = loudness.filter { $0.key >= token }
        if let original = queue.queue.currentOriginalIndex { await giveItemGain(toOriginal: original, token: token) }
        if let next, let target = preloaded?.originalIndex { await giveItemGain(toOriginal: target, token: next.token) }
        try await engine.load(uri: item.uri, token: token, startAt: position > 0 ? position : nil, next: next)
        if rate != 1 { try await engine.setRate(rate) }
        if play { try await engine.play() }
    }

    /// Stops the engine and forgets everything about the current load.
    nonisolated(nonsending) func release() async {
        if current != nil || preloaded != nil { await engine.stop() }
        current = nil
        isStarted = false
        preloaded = nil
        preloadRefused = nil
        tags = StreamTags()
        duration = nil
    }

    /// Points the engine's gapless preload at the item that would play at the current item's natural
    /// end under the modes, if that changed (`force`: tell the engine even if not, as after a load).
    nonisolated(nonsending) func updatePreload(force: Bool = false) async {
        let target = current == nil ? nil : queue.currentItem.flatMap {
            queue.preloadTarget(following: $0, refused: preloadRefused)
        }
        guard force || target != preloaded?.originalIndex else { return }
        guard let target else {
            preloaded = nil
            await engine.preloadNext(uri: nil, token: nil)
            return
        }
        let token = nextToken()
        preloaded = (token, target)
        await giveItemGain(toOriginal: target, token: token)
        await engine.preloadNext(uri: queue.queue.items[target].uri, token: token)
    }

    /// Keeps the preload and the refused preload on the same items after the queue renumbered them; a
    /// preloaded item that was removed is dropped, and `updatePreload` points the engine elsewhere.
    /// Returns whether the engine still holds a preload of a removed item, which must be taken back.
    func follow(_ renumbering: QueueRenumbering) -> Bool {
        var lost = false
        if let next = preloaded {
            preloaded = renumbering.map(next.originalIndex).map { (next.token, $0) }
            lost = preloaded == nil
        }
        preloadRefused = renumbering.map(preloadRefused)
        return lost
    }

    // MARK: - Facts about the loads

    /// The current load produced its first audio: the item it plays, once; nil for a repeat or a stale
    /// token. Whoever waits for it is told by the caller, after the event that says so.
    func markStarted(_ token: PlaybackToken) -> QueueItem? {
        guard token == current, !isStarted, let item = queue.currentItem else { return nil }
        isStarted = true
        consecutiveFailures = 0
        return item
    }

    /// The engine switched gaplessly to the preload under `token`: the queue moves to its item (nil: the
    /// item is gone from the queue, and nothing else changes).
    func moveToPreloaded(_ token: PlaybackToken) -> QueueItem? {
        guard let next = preloaded, next.token == token else { return nil }
        queue.moveTo(originalIndex: next.originalIndex)
        return queue.currentItem
    }

    /// The preload under `token` plays now as the current load of `item`.
    func adoptPreloaded(_ token: PlaybackToken, playing item: QueueItem) {
        current = token
        isStarted = true
        preloaded = nil
        preloadRefused = nil
        tags = StreamTags()
        duration = item.duration
    }

    /// The preload under `token` failed: it is dropped and not tried again until the current item
    /// changes. False when `token` is not the preload.
    nonisolated(nonsending) func preloadFailed(_ token: PlaybackToken) async -> Bool {
        guard let next = preloaded, next.token == token else { return false }
        preloadRefused = next.originalIndex
        preloaded = nil
        await engine.preloadNext(uri: nil, token: nil)
        return true
    }

    /// A buffering report for the current load; true when it begins a stall of a load that had started
    /// (counted once per stall, not per buffering message).
    func buffering(percent: Int) -> Bool {
        let starved = percent < 100
        defer { isStalled = starved }
        return starved && !isStalled && isStarted
    }

    // MARK: - Waiting for the first sound

    /// Tells `waiter` once the current load produces audio, or why it never will; at once if it already does.
    func whenStarted(_ waiter: @escaping @Sendable (PlaybackOutcome) -> Void) {
        if isStarted { waiter(.success) } else { startWaiters.append(waiter) }
    }

    /// Whether a command still waits to hear that the current load started.
    var isAwaitedByCommand: Bool { !isStarted && !startWaiters.isEmpty }

    /// Answers everyone waiting for the current load to start.
    func resolveStartWaiters(_ outcome: PlaybackOutcome) {
        let waiters = startWaiters
        startWaiters = []
        for waiter in waiters { waiter(outcome) }
    }

    // MARK: - Internals

    private func nextToken() -> PlaybackToken {
        lastTokenValue += 1
        return PlaybackToken(lastTokenValue)
    }

    /// The gain of the item at `original` for the load or preload under `token` (see `OutputLevel`).
    private nonisolated(nonsending) func giveItemGain(toOriginal original: Int, token: PlaybackToken) async {
        guard queue.queue.items.indices.contains(original) else { return }
        let item = queue.queue.items[original]
        // Its title goes with it, for a sound server's stream name.
        await engine.setItemTitle(item.title, for: token)
        let found = await level.giveItemGain(to: item, asAlbum: queue.playsAsAlbum(original), token: token)
        loudness[token] = found
    }
}
