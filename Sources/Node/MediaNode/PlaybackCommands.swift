import ContentTree
import Playback
import RemoteCommands

// MARK: - The playback commands' handlers

/// The transport, position, rate, mode, language, interruption and feedback commands, each bound to the
/// playback controller (or the feedback book) with its outcome mapped to a status.
struct PlaybackCommands: Sendable {
    let commandCenter: RemoteCommandCenter
    let playback: PlaybackController
    let feedback: FeedbackBook
    let capabilities: CapabilitiesPublisher

    func handle() {
        let center = commandCenter
        let capabilities = center.capabilities
        let interval = capabilities.preferredIntervals.first ?? 15
        center.addHandler(for: .play) { CommandResult.result(await playback.play()) }
        center.addHandler(for: .pause) { CommandResult.result(await playback.pause()) }
        center.addHandler(for: .togglePlayPause) { CommandResult.result(await playback.togglePlayPause()) }
        center.addHandler(for: .stop) { CommandResult.result(await playback.stop()) }
        center.addHandler(for: .nextTrack) { CommandResult.result(await playback.nextTrack()) }
        center.addHandler(for: .previousTrack) { CommandResult.result(await playback.previousTrack()) }
        center.addHandler(for: .skipForward) { CommandResult.result(await playback.skip(by: $0 ?? interval)) }
        center.addHandler(for: .skipBackward) { CommandResult.result(await playback.skip(by: -($0 ?? interval))) }
        for (command, forward) in [(RemoteCommand<SeekCommandType>.seekForward, true), (.seekBackward, false)] {
            center.addHandler(for: command) { type in
                switch type {
                case .beginSeeking: CommandResult.result(await playback.beginSeeking(forward: forward))
                case .endSeeking: CommandResult.result(await playback.endSeeking())
                }
            }
        }
        center.addHandler(for: .changePlaybackPosition) { request in
            CommandResult.result(await playback.seek(to: request.positionTime, identifier: request.identifier))
        }
        center.addHandler(for: .skipToChapter) { number in await skipToChapter(number) }
        center.addHandler(for: .changePlaybackRate) { request in
            switch request {
            case let .rate(rate):
                return CommandResult.result(await playback.setRate(rate))
            case .next:
                let current = await playback.snapshot.rate
                guard let next = capabilities.nextSupportedRate(after: current) else {
                    return .failed("the current rate \(current) is not one of supportedPlaybackRates")
                }
                return CommandResult.result(await playback.setRate(next), data: ["playbackRate": .number(next)])
            }
        }
        center.addHandler(for: .changeRepeatMode) { type in
            CommandResult.result(await playback.setRepeatMode(RepeatMode(type)))
        }
        center.addHandler(for: .changeShuffleMode) { type in
            CommandResult.result(await playback.setShuffleMode(ShuffleMode(type)))
        }
        center.addHandler(for: .enableLanguageOption) { option in
            guard option.type == .audible else { return .failed("no such language option: no legible (subtitle) options") }
            return CommandResult.languageResult(
                await playback.selectAudioStream(languageTag: option.languageTag), tag: option.languageTag)
        }
        center.addHandler(for: .disableLanguageOption) { option in
            guard option.type == .audible else { return .failed("no such language option: no legible (subtitle) options") }
            let tag = option.languageTag
            let streams = await playback.audioStreams()
            guard let stream = streams.first(where: { $0.languageTag?.lowercased() == tag.lowercased() }) else {
                let nothingLoaded = await playback.snapshot.item == nil
                return nothingLoaded
                    ? CommandResult(.noActionableNowPlayingItem, message: "nothing is loaded")
                    : .failed("no such language option: \(tag)")
            }
            guard stream.isActive else { return .success }
            // An audio stream cannot be switched off; the item falls back to its first other stream.
            guard let other = streams.first(where: { $0.index != stream.index }) else {
                return .failed("\(tag) is the item's only audio stream")
            }
            return CommandResult.result(await playback.selectAudioStream(other.index))
        }
        center.addHandler(for: .interrupt) { request in
            switch request {
            case let .begin(duck): CommandResult.result(await playback.beginInterruption(duck: duck))
            case let .end(shouldResume): CommandResult.result(await playback.endInterruption(shouldResume: shouldResume))
            }
        }
        handleFeedbackCommands()
    }

    /// Plays the current item from a chapter's start (version 1.3): a seek the controller makes as any other,
    /// refused for an item without chapters or a chapter it does not have.
    func skipToChapter(_ number: Int) async -> CommandResult {
        guard let item = await playback.snapshot.item else {
            return CommandResult(.noActionableNowPlayingItem, message: "nothing is loaded")
        }
        guard !item.chapters.isEmpty else { return .failed("'\(item.identifier)' has no chapters") }
        guard number < item.chapters.count else {
            return .failed("'chapterNumber' must be from 0 to \(item.chapters.count - 1) for '\(item.identifier)', got \(number)")
        }
        // Named, so a seek that finds another item current (the queue moved meanwhile) is refused, not misapplied.
        let outcome = await playback.seek(to: item.chapters[number].startTime, identifier: item.identifier)
        guard outcome.isSuccess else { return CommandResult.result(outcome) }
        // It plays from there: a paused item starts (an interruption, a phone call, is left to end by itself).
        guard await playback.snapshot.state == .paused else { return .success }
        return CommandResult.result(await playback.play())
    }

    private func handleFeedbackCommands() {
        let center = commandCenter
        for (command, mark) in [(RemoteCommand<Bool>.like, FeedbackMark.like), (.dislike, .dislike), (.bookmark, .bookmark)] {
            center.addHandler(for: command) { [playback, feedback, capabilities] isNegative in
                guard let identifier = await playback.snapshot.item?.identifier else {
                    return CommandResult(.noActionableNowPlayingItem, message: "nothing is playing to mark")
                }
                do {
                    let marks = try await feedback.set(mark, active: !isNegative, for: identifier)
                    center.showFeedback(marks)
                    capabilities.mark()
                    return .success
                } catch {
                    return .failed("could not save the mark: \(error)")
                }
            }
        }
        center.addHandler(for: .rating) { [playback, feedback] value in
            guard let identifier = await playback.snapshot.item?.identifier else {
                return CommandResult(.noActionableNowPlayingItem, message: "nothing is playing to rate")
            }
            do {
                try await feedback.setRating(value, for: identifier)
                return .success
            } catch {
                return .failed("could not save the rating: \(error)")
            }
        }
    }

}
