// MARK: - Audio streams (language options)

extension PlaybackController {
    /// The audio streams of the current item (S1: enable/disableLanguageOption).
    public func audioStreams() async -> [AudioStreamOption] {
        guard queue.currentItem != nil, loads.isLoaded else { return [] }
        return await engine.audioStreams()
    }

    /// Switches to the audio stream at `index` of the current item.
    @discardableResult
    public func selectAudioStream(_ index: Int) async -> PlaybackOutcome {
        await exclusively {
            guard queue.currentItem != nil, loads.isLoaded else { return .failed(.nothingLoaded) }
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
