// MARK: - Editing the queue while it plays

extension PlaybackController {
    /// Adds `items` after the current one or at the end; the playing item plays on. With nothing loaded
    /// they become the queue, paused, as prepareQueue does.
    @discardableResult
    public func addToQueue(_ items: [QueueItem], _ insertion: QueueInsertion) async -> PlaybackOutcome {
        await exclusively {
            guard !items.isEmpty else { return .failed(.invalid("there is nothing to add")) }
            guard queue.currentItem != nil else {
                await cancelSeekHold()
                queue.replaceItems(items, startAt: 0)
                consecutiveFailures = 0
                return await loadCurrent(playing: false)
            }
            await updatePreload(force: follow(queue.insert(items, insertion)))
            publish()
            return .success
        }
    }

    /// Removes the entry at play-order `index`. Removing the current item moves on to the next one,
    /// playing or paused as before, or stops at the end.
    @discardableResult
    public func removeFromQueue(at index: Int) async -> PlaybackOutcome {
        await exclusively {
            guard queue.order.indices.contains(index) else { return .failed(outOfRange("index", index)) }
            guard index == queue.currentIndex else {
                await updatePreload(force: follow(queue.remove(at: index)))
                publish()
                return .success
            }
            let wasPlaying = state == .playing
            await cancelSeekHold()
            await endCurrentTrack(.skipped)
            _ = follow(queue.remove(at: index))
            guard queue.currentItem != nil else {
                await stopAtEnd()
                return .success
            }
            consecutiveFailures = 0
            let outcome = await loadCurrent(playing: wasPlaying)
            // The removal happened whatever the next item does; a next item that cannot play is reported
            // on its own (an error event), as when it is reached by playing.
            if case .failed(.deviceLost) = outcome { return outcome }
            return .success
        }
    }

    /// Moves an entry within the play order; the playing item keeps playing.
    @discardableResult
    public func moveQueueItem(from: Int, to: Int) async -> PlaybackOutcome {
        await exclusively {
            guard queue.order.indices.contains(from) else { return .failed(outOfRange("from", from)) }
            guard queue.order.indices.contains(to) else { return .failed(outOfRange("to", to)) }
            guard from != to else { return .success }
            await updatePreload(force: follow(queue.move(from: from, to: to)))
            publish()
            return .success
        }
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

    func outOfRange(_ name: String, _ index: Int) -> PlaybackFailure {
        .invalid("'\(name)' \(index) is outside the queue of \(queue.count) entries (0...\(max(0, queue.count - 1)))")
    }
}
