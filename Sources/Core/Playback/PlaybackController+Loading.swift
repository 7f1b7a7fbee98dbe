// MARK: - Loading items into the engine

extension PlaybackController {
    /// Loads the queue's current item and, if `playing`, starts it. An item that fails to load is
    /// reported and skipped (the nextTrack rule), until one loads or every item has failed.
    /// Caller holds the turn.
    func loadCurrent(startAt: Double? = nil, playing: Bool) async -> PlaybackOutcome {
        var failures = 0
        var start = startAt
        while let item = queue.currentItem {
            await cancelSeekHold()
            resolveStartWaiters(.failed(.invalid("replaced before it started")))
            let token = nextToken()
            currentToken = token
            currentStarted = false
            preloaded = nil
            preloadRefused = nil
            tags = StreamTags()
            duration = item.duration
            let position = start ?? item.startPosition ?? 0
            let next = preloadTarget(following: item).map { target in
                let next = NextItem(uri: queue.items[target].uri, token: nextToken())
                preloaded = (next.token, target)
                return next
            }
            forgetItemLoudness(before: token)
            if let original = queue.currentOriginalIndex { await giveItemGain(toOriginal: original, token: token) }
            if let next, let target = preloaded?.originalIndex { await giveItemGain(toOriginal: target, token: next.token) }
            do throws(AudioError) {
                try await engine.load(uri: item.uri, token: token, startAt: position > 0 ? position : nil, next: next)
                if rate != 1 { try await engine.setRate(rate) }
                if playing { try await engine.play() }
                state = playing ? .playing : (state == .interrupted ? .interrupted : .paused)
                if playing {
                    interruption = nil
                    if announcementHold == .pause { announcementHold = nil }
                }
                anchor(at: position)
                publish()
                return .success
            } catch where error.kind == .device {
                state = .paused
                anchor(at: position)
                emit(.error(identifier: item.identifier, error))
                publish()
                return .failed(.deviceLost(error.message))
            } catch {
                emit(.error(identifier: item.identifier, error))
                failures += 1
                start = nil
                guard failures < queue.count, queue.advance(.nextTrack) != nil else {
                    await stopAtEnd()
                    return .failed(.unplayable("no item in the queue could be played: \(error.message)"))
                }
            }
        }
        await stopAtEnd()
        return .failed(.nothingLoaded)
    }

    /// Reports the end of the current item if it ever produced audio. Caller holds the turn.
    func endCurrentTrack(_ reason: TrackEndReason, at position: Double? = nil) async {
        guard let item = queue.currentItem, currentToken != nil, currentStarted else { return }
        let ended: Double
        if let position { ended = position } else { ended = await currentPosition() }
        emit(.trackEnded(identifier: item.identifier, reason: reason, position: ended))
    }

    /// Played past the end (or nothing could play): nothing current, the engine released, the
    /// items kept so play starts over. Caller holds the turn.
    func stopAtEnd() async {
        await cancelSeekHold()
        resolveStartWaiters(.failed(.unplayable("playback stopped before the item started")))
        queue.movePastEnd()
        await releaseEngine()
        publish()
    }

    /// Stops the engine and forgets everything about the current load.
    func releaseEngine() async {
        if currentToken != nil || preloaded != nil { await engine.stop() }
        currentToken = nil
        currentStarted = false
        preloaded = nil
        preloadRefused = nil
        tags = StreamTags()
        duration = nil
        state = .stopped
        interruption = nil
        if announcementHold == .pause { announcementHold = nil }
        anchor(at: 0)
    }

    /// Points the engine's gapless preload at the item that would play at the current item's natural
    /// end under the modes, if that changed (`force`: tell the engine even if not, as after a load).
    /// Caller holds the turn.
    func updatePreload(force: Bool = false) async {
        let target = currentToken == nil ? nil : queue.currentItem.flatMap { preloadTarget(following: $0) }
        guard force || target != preloaded?.originalIndex else { return }
        guard let target else {
            preloaded = nil
            await engine.preloadNext(uri: nil, token: nil)
            return
        }
        let token = nextToken()
        preloaded = (token, target)
        await giveItemGain(toOriginal: target, token: token)
        await engine.preloadNext(uri: queue.items[target].uri, token: token)
    }

    /// The original index of the item that would play at `current`'s natural end under the modes, unless
    /// it is a live stream (which never ends) or the item the engine already refused.
    func preloadTarget(following current: QueueItem) -> Int? {
        guard !current.isLiveStream, let next = queue.index(after: .naturalEnd),
              let original = queue.order[safe: next], original != preloadRefused
        else { return nil }
        return original
    }

    /// Answers everyone waiting in `waitUntilStarted()`.
    func resolveStartWaiters(_ outcome: PlaybackOutcome) {
        let waiters = startWaiters
        startWaiters = []
        for waiter in waiters { waiter(outcome) }
    }

    /// Waits until the current item really produces audio, or fails (S24: a play request is answered
    /// only then). Returns at once if it already plays. Add a timeout around it: an engine that never
    /// reports keeps it waiting until the current item changes.
    public func waitUntilStarted() async -> PlaybackOutcome {
        guard currentToken != nil else { return .failed(.nothingLoaded) }
        if currentStarted { return .success }
        return await withCheckedContinuation { continuation in
            startWaiters.append { continuation.resume(returning: $0) }
        }
    }
}

extension Array {
    subscript(safe index: Int) -> Element? {
        indices.contains(index) ? self[index] : nil
    }
}
