// MARK: - The queue's commands: replacing it and its modes

extension PlaybackController {
    /// Replaces the queue with `items`, positioned at `index` (in the order given), and loads that
    /// item: playing if `play`, else paused and ready (S32: prepareQueue). The repeat and shuffle
    /// modes carry over; with shuffle on, the start item plays first. `context`: where in the content
    /// tree the items came from (now playing's identifier path).
    ///
    /// `onStart`, when the load succeeds, is told in the same turn's wake once audio really plays, or
    /// why it never will (replaced, stopped, paused, failed): registered before any later command can
    /// slip in, so a caller can answer later without holding up the commands after it (S24).
    @discardableResult
    public func setQueue(_ items: [QueueItem], startAt index: Int = 0, play: Bool, context: [String] = [],
                         onStart: (@Sendable (PlaybackOutcome) -> Void)? = nil) async -> PlaybackOutcome {
        await exclusively {
            guard !items.isEmpty else { return .failed(.invalid("the queue has no items")) }
            guard items.indices.contains(index) else {
                return .failed(.invalid("start index \(index) is outside the \(items.count) items"))
            }
            await playhead.cancelSeekHold()
            await transport.endCurrentTrack(.skipped)
            queue.replace(items, startAt: index, context: context)
            loads.consecutiveFailures = 0
            let outcome = await transport.loadCurrent(playing: play)
            if let onStart, outcome.isSuccess { loads.whenStarted(onStart) }
            return outcome
        }
    }

    /// Loads `items` without playing (S32); a later play starts them.
    @discardableResult
    public func prepareQueue(_ items: [QueueItem], startAt index: Int = 0, context: [String] = []) async -> PlaybackOutcome {
        await setQueue(items, startAt: index, play: false, context: context)
    }

    /// Adopts `mode` (S10: the target state; the same mode twice is harmless). Works with nothing
    /// loaded too, since a car stereo sends it when it connects.
    @discardableResult
    public func setRepeatMode(_ mode: RepeatMode) async -> PlaybackOutcome {
        await exclusively {
            guard queue.setRepeatMode(mode) else { return .success }
            await loads.updatePreload()
            playhead.publish()
            return .success
        }
    }

    /// Adopts `mode` (S10); the current item stays current. The same mode twice changes nothing.
    @discardableResult
    public func setShuffleMode(_ mode: ShuffleMode) async -> PlaybackOutcome {
        await exclusively {
            guard queue.setShuffleMode(mode) else { return .success }
            await loads.updatePreload()
            playhead.publish()
            return .success
        }
    }

    // MARK: - Editing the queue while it plays

    /// Adds `items` after the current one or at the end; the playing item plays on. With nothing loaded
    /// they become the queue, paused, as prepareQueue does.
    @discardableResult
    public func addToQueue(_ items: [QueueItem], _ insertion: QueueInsertion) async -> PlaybackOutcome {
        await exclusively {
            guard !items.isEmpty else { return .failed(.invalid("there is nothing to add")) }
            guard queue.currentItem != nil else {
                await playhead.cancelSeekHold()
                queue.replace(items, startAt: 0, context: nil)
                loads.consecutiveFailures = 0
                return await transport.loadCurrent(playing: false)
            }
            await loads.updatePreload(force: loads.follow(queue.insert(items, insertion)))
            playhead.publish()
            return .success
        }
    }

    /// Removes the entry at play-order `index`. Removing the current item moves on to the next one,
    /// playing or paused as before, or stops at the end.
    @discardableResult
    public func removeFromQueue(at index: Int) async -> PlaybackOutcome {
        await exclusively {
            guard queue.queue.order.indices.contains(index) else { return .failed(queue.outOfRange("index", index)) }
            guard index == queue.queue.currentIndex else {
                await loads.updatePreload(force: loads.follow(queue.remove(at: index)))
                playhead.publish()
                return .success
            }
            let wasPlaying = playhead.state == .playing
            await playhead.cancelSeekHold()
            await transport.endCurrentTrack(.skipped)
            _ = loads.follow(queue.remove(at: index))
            guard queue.currentItem != nil else {
                await transport.stopAtEnd()
                return .success
            }
            loads.consecutiveFailures = 0
            let outcome = await transport.loadCurrent(playing: wasPlaying)
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
            guard queue.queue.order.indices.contains(from) else { return .failed(queue.outOfRange("from", from)) }
            guard queue.queue.order.indices.contains(to) else { return .failed(queue.outOfRange("to", to)) }
            guard from != to else { return .success }
            await loads.updatePreload(force: loads.follow(queue.move(from: from, to: to)))
            playhead.publish()
            return .success
        }
    }

    // MARK: - Restoring the play state an earlier run saved (resume after a restart)

    /// Puts back a queue an earlier run saved, with where it came from in the tree, its current item
    /// paused at `position` and not yet loaded: the engine does no work at start (a stream is not
    /// connected to, an offline episode does not fail), and the first `play` loads the item there. A
    /// queue with nothing current leaves the node stopped.
    public func restore(_ restored: PlaybackQueue, context: [String] = [], position elapsed: Double, rate restoredRate: Double) async {
        await exclusively {
            await transport.releaseEngine()
            queue.restore(restored, context: context)
            if restoredRate.isFinite, restoredRate > 0 { playhead.rate = restoredRate }
            guard let item = queue.currentItem else {
                playhead.publish()
                return
            }
            playhead.state = .paused
            loads.duration = item.duration
            playhead.anchor(at: item.isLiveStream ? 0 : playhead.clamped(max(0, elapsed.isFinite ? elapsed : 0)))
            playhead.publish()
        }
    }
}
