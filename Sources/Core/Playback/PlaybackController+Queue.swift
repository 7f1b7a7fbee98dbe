// MARK: - The queue: replacing it and its modes

extension PlaybackController {
    /// Replaces the queue with `items`, positioned at `index` (in the order given), and loads that
    /// item: playing if `play`, else paused and ready (S32: prepareQueue). The repeat and shuffle
    /// modes carry over; with shuffle on, the start item plays first.
    ///
    /// `onStart`, when the load succeeds, is told in the same turn's wake once audio really plays, or
    /// why it never will (replaced, stopped, paused, failed): registered before any later command can
    /// slip in, so a caller can answer later without holding up the commands after it (S24).
    @discardableResult
    public func setQueue(_ items: [QueueItem], startAt index: Int = 0, play: Bool,
                         onStart: (@Sendable (PlaybackOutcome) -> Void)? = nil) async -> PlaybackOutcome {
        await exclusively {
            guard !items.isEmpty else { return .failed(.invalid("the queue has no items")) }
            guard items.indices.contains(index) else {
                return .failed(.invalid("start index \(index) is outside the \(items.count) items"))
            }
            await cancelSeekHold()
            await endCurrentTrack(.skipped)
            queue.replaceItems(items, startAt: index)
            consecutiveFailures = 0
            let outcome = await loadCurrent(playing: play)
            if let onStart, outcome.isSuccess {
                if currentStarted { onStart(.success) } else { startWaiters.append(onStart) }
            }
            return outcome
        }
    }

    /// Loads `items` without playing (S32); a later play starts them.
    @discardableResult
    public func prepareQueue(_ items: [QueueItem], startAt index: Int = 0) async -> PlaybackOutcome {
        await setQueue(items, startAt: index, play: false)
    }

    /// Adopts `mode` (S10: the target state; the same mode twice is harmless). Works with nothing
    /// loaded too, since a car stereo sends it when it connects.
    @discardableResult
    public func setRepeatMode(_ mode: RepeatMode) async -> PlaybackOutcome {
        await exclusively {
            guard queue.repeatMode != mode else { return .success }
            queue.repeatMode = mode
            await updatePreload()
            publish()
            return .success
        }
    }

    /// Adopts `mode` (S10); the current item stays current. The same mode twice changes nothing.
    @discardableResult
    public func setShuffleMode(_ mode: ShuffleMode) async -> PlaybackOutcome {
        await exclusively {
            guard queue.setShuffleMode(mode) else { return .success }
            await updatePreload()
            publish()
            return .success
        }
    }

    // MARK: - Audio streams (language options)

    /// The audio streams of the current item (S1: enable/disableLanguageOption).
    public func audioStreams() async -> [AudioStreamOption] {
        guard queue.currentItem != nil, currentToken != nil else { return [] }
        return await engine.audioStreams()
    }

    /// Switches to the audio stream at `index` of the current item.
    @discardableResult
    public func selectAudioStream(_ index: Int) async -> PlaybackOutcome {
        await exclusively {
            guard queue.currentItem != nil, currentToken != nil else { return .failed(.nothingLoaded) }
            let streams = await engine.audioStreams()
            guard streams.contains(where: { $0.index == index }) else {
                return .failed(.invalid("the item has no audio stream \(index)"))
            }
            do throws(AudioError) {
                try await engine.selectAudioStream(index)
            } catch {
                return .failed(PlaybackFailure(error))
            }
            return .success
        }
    }

    /// Switches to the audio stream in `languageTag` (BCP 47, compared case-insensitively).
    @discardableResult
    public func selectAudioStream(languageTag: String) async -> PlaybackOutcome {
        let streams = await audioStreams()
        guard !streams.isEmpty || queue.currentItem != nil else { return .failed(.nothingLoaded) }
        guard let stream = streams.first(where: { $0.languageTag?.lowercased() == languageTag.lowercased() })
        else {
            return .failed(.invalid("the item has no audio stream in \(languageTag)"))
        }
        return await selectAudioStream(stream.index)
    }
}
