import ContentTree
import MediaJSON
import Playback
import RemoteCommands

// MARK: - The playback commands' handlers

extension Node {
    /// Registers one handler per playback command; each maps the controller's outcome to a status.
    func registerPlaybackCommands(_ playback: PlaybackController) {
        let center = commandCenter
        let intervals = configuration.capabilities.preferredIntervals
        func on(_ command: RemoteCommand, _ body: @escaping @Sendable (CommandArguments) async -> CommandResult) {
            center.addHandler(for: command) { event in await body(event.arguments) }
        }
        on(.play) { _ in Self.result(await playback.play()) }
        on(.pause) { _ in Self.result(await playback.pause()) }
        on(.togglePlayPause) { _ in Self.result(await playback.togglePlayPause()) }
        on(.stop) { _ in Self.result(await playback.stop()) }
        on(.nextTrack) { _ in Self.result(await playback.nextTrack()) }
        on(.previousTrack) { _ in Self.result(await playback.previousTrack()) }
        on(.skipForward) { arguments in
            guard case let .skip(interval) = arguments else { return .failed("bad arguments") }
            return Self.result(await playback.skip(by: interval ?? intervals.first ?? 15))
        }
        on(.skipBackward) { arguments in
            guard case let .skip(interval) = arguments else { return .failed("bad arguments") }
            return Self.result(await playback.skip(by: -(interval ?? intervals.first ?? 15)))
        }
        for (command, forward) in [(RemoteCommand.seekForward, true), (.seekBackward, false)] {
            on(command) { arguments in
                guard case let .seek(type) = arguments else { return .failed("bad arguments") }
                switch type {
                case .beginSeeking: return Self.result(await playback.beginSeeking(forward: forward))
                case .endSeeking: return Self.result(await playback.endSeeking())
                }
            }
        }
        on(.changePlaybackPosition) { arguments in
            guard case let .changePlaybackPosition(position, identifier) = arguments else { return .failed("bad arguments") }
            return Self.result(await playback.seek(to: position, identifier: identifier))
        }
        on(.changePlaybackRate) { [capabilities = configuration.capabilities] arguments in
            guard case let .changePlaybackRate(request) = arguments else { return .failed("bad arguments") }
            switch request {
            case let .rate(rate):
                return Self.result(await playback.setRate(rate))
            case .next:
                let current = await playback.snapshot.rate
                guard let next = capabilities.nextSupportedRate(after: current) else {
                    return .failed("the current rate \(current) is not one of supportedPlaybackRates")
                }
                return Self.result(await playback.setRate(next), data: ["playbackRate": .number(next)])
            }
        }
        on(.changeRepeatMode) { arguments in
            guard case let .changeRepeatMode(type) = arguments, let mode = RepeatMode(rawValue: type.rawValue) else {
                return .failed("bad arguments")
            }
            return Self.result(await playback.setRepeatMode(mode))
        }
        on(.changeShuffleMode) { arguments in
            guard case let .changeShuffleMode(type) = arguments, let mode = ShuffleMode(rawValue: type.rawValue) else {
                return .failed("bad arguments")
            }
            return Self.result(await playback.setShuffleMode(mode))
        }
        on(.enableLanguageOption) { arguments in
            guard case let .languageOption(tag, type) = arguments else { return .failed("bad arguments") }
            guard type == .audible else { return .failed("no such language option: no legible (subtitle) options") }
            return Self.languageResult(await playback.selectAudioStream(languageTag: tag), tag: tag)
        }
        on(.disableLanguageOption) { arguments in
            guard case let .languageOption(tag, type) = arguments else { return .failed("bad arguments") }
            guard type == .audible else { return .failed("no such language option: no legible (subtitle) options") }
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
            return Self.result(await playback.selectAudioStream(other.index))
        }
        on(.interrupt) { arguments in
            guard case let .interrupt(request) = arguments else { return .failed("bad arguments") }
            switch request {
            case let .begin(duck): return Self.result(await playback.beginInterruption(duck: duck))
            case let .end(shouldResume): return Self.result(await playback.endInterruption(shouldResume: shouldResume))
            }
        }
        registerFeedbackCommands(playback)
    }

    private func registerFeedbackCommands(_ playback: PlaybackController) {
        let feedback = self.feedback
        for (command, mark) in [(RemoteCommand.like, FeedbackMark.like), (.dislike, .dislike), (.bookmark, .bookmark)] {
            commandCenter.addHandler(for: command) { [weak self] event in
                guard case let .feedback(isNegative) = event.arguments else { return .failed("bad arguments") }
                guard let identifier = await playback.snapshot.item?.identifier else {
                    return CommandResult(.noActionableNowPlayingItem, message: "nothing is playing to mark")
                }
                do {
                    let marks = try await feedback.set(mark, active: !isNegative, for: identifier)
                    self?.showFeedback(marks)
                    return .success
                } catch {
                    return .failed("could not save the mark: \(error)")
                }
            }
        }
        commandCenter.addHandler(for: .rating) { event in
            guard case let .rating(value) = event.arguments else { return .failed("bad arguments") }
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

    /// Reflects the current item's marks as `isActive` of like, dislike and bookmark.
    func showFeedback(_ marks: ItemFeedback) {
        commandCenter.setParameter("isActive", .bool(marks.liked), for: .like)
        commandCenter.setParameter("isActive", .bool(marks.disliked), for: .dislike)
        commandCenter.setParameter("isActive", .bool(marks.bookmarked), for: .bookmark)
    }

    static func result(_ outcome: PlaybackOutcome, data: JSONValue? = nil) -> CommandResult {
        switch outcome {
        case .success: CommandResult(.success, data: data)
        case let .failed(failure): CommandResult(status(of: failure), message: failure.message)
        }
    }

    static func languageResult(_ outcome: PlaybackOutcome, tag: String) -> CommandResult {
        if case .failed(.invalid) = outcome { return .failed("no such language option: \(tag)") }
        return result(outcome)
    }

    /// The status table of CONTRACT.md (S4, S5).
    static func status(of failure: PlaybackFailure) -> CommandStatus {
        switch failure {
        case .nothingLoaded: .noActionableNowPlayingItem
        case .alreadyPlaying, .alreadyPaused, .invalid, .unplayable: .commandFailed
        case .noSuchContent: .noSuchContent
        case .deviceLost: .deviceNotFound
        }
    }
}
