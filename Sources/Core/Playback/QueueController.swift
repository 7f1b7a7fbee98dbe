// MARK: - The queue (Mopidy's tracklist)

/// The one owner of the queue: its items, their play order, the current entry, the repeat and shuffle
/// modes, and where in the content tree it came from. Only its methods change them; the transport asks it
/// what is current and what comes next, and moves it on.
///
/// Threading: lives in the playback controller's isolation (it is not `Sendable`, so the compiler keeps it
/// there) and changes only inside the controller's turns, so a queue edit and a track change never
/// interleave. Others read it through the controller's snapshot and `currentQueue`.
final class QueueController {
    private(set) var queue: PlaybackQueue
    /// The identifiers from the section down to the container the queue was made from (S31).
    private(set) var context: [String] = []

    init(seed: UInt64) {
        queue = PlaybackQueue(seed: seed)
    }

    // MARK: - Reading

    var currentItem: QueueItem? { queue.currentItem }
    var isEmpty: Bool { queue.isEmpty }
    var count: Int { queue.count }
    var summary: QueueSummary {
        var summary = queue.summary
        summary.context = context
        return summary
    }

    // MARK: - Replacing it

    /// The queue becomes `items`, positioned at `index` (in the order given); the modes carry over.
    /// `context`: where it came from in the tree; nil keeps the one it had.
    func replace(_ items: [QueueItem], startAt index: Int, context: [String]?) {
        queue.replaceItems(items, startAt: index)
        if let context { self.context = context }
    }

    /// A queue an earlier run saved, exactly as it was.
    func restore(_ restored: PlaybackQueue, context: [String]) {
        queue = restored
        self.context = context
    }

    /// Empties the queue (S8: stop releases the current playlist).
    func removeAll() { queue.removeAll() }

    // MARK: - Moving in it

    func moveTo(index: Int) { queue.moveTo(index: index) }
    func moveTo(originalIndex: Int) { queue.moveTo(originalIndex: originalIndex) }
    func movePastEnd() { queue.movePastEnd() }

    /// Moves on by the repeat rules; the new current item, or nil when playback stops.
    func advance(_ advance: QueueAdvance) -> QueueItem? { queue.advance(advance) }

    /// What previousTrack would do at `position`, without doing it (see `moveBack`).
    func previousTrackMove(position: Double, restartThreshold: Double) -> PreviousTrackMove? {
        var preview = queue
        return preview.previousTrack(position: position, restartThreshold: restartThreshold)
    }

    /// Makes the item before the current one current (previousTrack's `.moved`).
    func moveBack() {
        if let before = queue.indexBefore() { queue.moveTo(index: before) }
    }

    // MARK: - Modes and edits

    /// Adopts `mode`; false when it was the mode already.
    func setRepeatMode(_ mode: RepeatMode) -> Bool {
        guard queue.repeatMode != mode else { return false }
        queue.repeatMode = mode
        return true
    }

    /// Adopts `mode`; the current item stays current. False when it was the mode already.
    func setShuffleMode(_ mode: ShuffleMode) -> Bool { queue.setShuffleMode(mode) }

    func insert(_ items: [QueueItem], _ insertion: QueueInsertion) -> QueueRenumbering { queue.insert(items, insertion) }
    func remove(at index: Int) -> QueueRenumbering { queue.remove(at: index) }
    func move(from: Int, to: Int) -> QueueRenumbering { queue.move(from: from, to: to) }

    /// Why a play-order index `name` names no entry.
    func outOfRange(_ name: String, _ index: Int) -> PlaybackFailure {
        .invalid("'\(name)' \(index) is outside the queue of \(queue.count) entries (0...\(max(0, queue.count - 1)))")
    }

    // MARK: - What comes next

    /// The original index of the item that would play at `current`'s natural end under the modes, unless
    /// it is a live stream (which never ends) or `refused` (the item the engine refused to preload).
    func preloadTarget(following current: QueueItem, refused: Int?) -> Int? {
        guard !current.isLiveStream, let next = queue.index(after: .naturalEnd),
              let original = queue.order[safe: next], original != refused
        else { return nil }
        return original
    }

    /// An album plays in its order: not shuffled item by item, and a neighbour in play order comes from the
    /// same container. Then album gain keeps its tracks' loudness relative to each other, as mastered.
    func playsAsAlbum(_ original: Int) -> Bool {
        guard queue.shuffleMode != .items, let container = queue.items[original].containerIdentifier,
              let position = queue.order.firstIndex(of: original)
        else { return false }
        return [position - 1, position + 1].contains { neighbour in
            queue.order.indices.contains(neighbour)
                && queue.items[queue.order[neighbour]].containerIdentifier == container
        }
    }
}

extension Array {
    subscript(safe index: Int) -> Element? {
        indices.contains(index) ? self[index] : nil
    }
}
