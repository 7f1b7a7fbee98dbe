// MARK: - What the engine's facts mean

extension PlaybackController {
    /// Handles one fact in its own turn. Facts stamped with a token that is neither the current load
    /// nor the preloaded one are stale and ignored.
    func handle(_ fact: AudioFact) async {
        await exclusively {
            switch fact {
            case let .streamStarted(token):
                await streamStarted(token)
            case let .endOfStream(token) where token == currentToken:
                await endOfStream()
            case let .error(token, error):
                await failed(token, error)
            case let .tags(token, newTags) where token == currentToken:
                tags.merge(newTags)
                publish()
            case let .duration(token, newDuration) where token == currentToken:
                guard queue.currentItem?.isLiveStream == false else { break }
                duration = newDuration
                publish()
            case let .stateChanged(.playing, token) where token == currentToken:
                // The pipeline starts moving some time after play() or a seek returns (longer under load,
                // seconds over a slow network); pin the position to the moment it really does, so readers
                // extrapolate from the truth.
                seekLanding = nil
                guard state == .playing else { break }
                await reanchor()
                publish()
            case let .buffering(token, percent) where token == currentToken:
                // A stream that ran dry while it played: counted once per stall, not per buffering message.
                let starved = percent < 100
                if starved, !isStalled, currentStarted, state == .playing, let item = queue.currentItem {
                    emit(.stalled(identifier: item.identifier))
                }
                isStalled = starved
            case let .focusChanged(hasFocus):
                await focusChanged(hasFocus: hasFocus)
            case let .outputLost(message):
                await outputLost(message)
            case .outputRestored:
                await outputRestored()
            default:
                // Other state changes and buffering: the controller's own state is authoritative, since it
                // changes only through its operations; stale tokens land here too.
                break
            }
        }
        handledFactCount += 1
    }

    /// The current load really plays (S24), or the engine switched gaplessly to the preloaded item.
    func streamStarted(_ token: PlaybackToken) async {
        if token == currentToken {
            guard !currentStarted, let item = queue.currentItem else { return }
            currentStarted = true
            consecutiveFailures = 0
            emit(.trackStarted(identifier: item.identifier))
            resolveStartWaiters(.success)
            return
        }
        guard let next = preloaded, next.token == token else { return }
        await endCurrentTrack(.finished, at: duration)
        queue.moveTo(originalIndex: next.originalIndex)
        guard let item = queue.currentItem else { return }
        await cancelSeekHold()
        currentToken = token
        currentStarted = true
        preloaded = nil
        preloadRefused = nil
        tags = StreamTags()
        duration = item.duration
        anchor(at: 0)
        emit(.trackStarted(identifier: item.identifier))
        await updatePreload()
        publish()
    }

    /// The current item played to its end with nothing preloaded (S15): advance by the modes, or stop.
    func endOfStream() async {
        let playing = state == .playing
        await endCurrentTrack(.finished, at: duration)
        guard queue.advance(.naturalEnd) != nil else {
            await stopAtEnd()
            return
        }
        _ = await loadCurrent(playing: playing)
    }

    /// An error for the current item skips it; for the preloaded item it drops the preload (the item
    /// is reported and skipped when reached); a lost output pauses and is reported.
    func failed(_ token: PlaybackToken, _ error: AudioError) async {
        if let next = preloaded, next.token == token {
            preloadRefused = next.originalIndex
            preloaded = nil
            await engine.preloadNext(uri: nil, token: nil)
            return
        }
        guard token == currentToken, let item = queue.currentItem else { return }
        emit(.error(identifier: item.identifier, error))
        if error.kind == .device {
            resolveStartWaiters(.failed(.deviceLost(error.message)))
            await cancelSeekHold()
            await reanchor()
            if state == .playing { state = .paused }
            anchor(at: anchorElapsed)
            publish()
            return
        }
        resolveStartWaiters(.failed(.unplayable("\(item.identifier): \(error.message)")))
        let playing = state == .playing
        await endCurrentTrack(.failed)
        consecutiveFailures += 1
        // Every item failing in a row under repeat all would loop forever: stop instead.
        guard consecutiveFailures < queue.count, queue.advance(.nextTrack) != nil else {
            consecutiveFailures = 0
            await stopAtEnd()
            return
        }
        _ = await loadCurrent(playing: playing)
    }
}

extension StreamTags {
    /// Takes every field `other` carries; keeps the rest (tag messages arrive piecemeal).
    mutating func merge(_ other: StreamTags) {
        title = other.title ?? title
        artist = other.artist ?? artist
        albumTitle = other.albumTitle ?? albumTitle
        genre = other.genre ?? genre
        composer = other.composer ?? composer
        releaseDate = other.releaseDate ?? releaseDate
        albumTrackNumber = other.albumTrackNumber ?? albumTrackNumber
        albumTrackCount = other.albumTrackCount ?? albumTrackCount
        discNumber = other.discNumber ?? discNumber
        discCount = other.discCount ?? discCount
        if let image = other.image {
            self.image = image
            imageMimeType = other.imageMimeType
        }
    }
}
