import MediaJSON
import Playback
import RemoteCommands

// MARK: - Position (S6, S7, S14), chapters (version 1.3), rate (S16, S17), repeat and shuffle (S10), language options

extension CommandTable {
    static let position: [Entry] = [
        skipForward, skipBackward, seekForward, seekBackward, changePlaybackPosition, skipToChapter, changePlaybackRate,
        changeRepeatMode, changeShuffleMode, enableLanguageOption, disableLanguageOption,
    ]

    static let skipForward: Entry = skip("skipForward", by: 1, "Jumps ahead by interval seconds (default: the first of preferredIntervals).")
    static let skipBackward: Entry = skip("skipBackward", by: -1, "Jumps back by interval seconds (default: the first of preferredIntervals).")

    /// The interval in seconds, the first preferred one when the request names none.
    private static func skip(_ name: String, by sign: Double, _ summary: String) -> Entry {
        RemoteCommand<Double>(
            name, availability: .withSeekableItem,
            fields: [.init("interval", .number, schema: ["exclusiveMinimum": 0, "maximum": .number(maximumRequestSeconds)])],
            documentation: .init(payload: "`interval` (seconds, > 0; default the first of `preferredIntervals`)", summary: summary),
            parameters: { ["preferredIntervals": .array($0.preferredIntervals.map(JSONValue.number))] }
        ) { fields, capabilities in
            guard let interval = try fields.optionalNumber("interval") else { return capabilities.preferredIntervals.first ?? 15 }
            guard interval > 0 else { throw CommandValidationError("'interval' must be greater than 0, got \(quote(interval))") }
            try checkSeconds(interval, "interval")
            return interval
        }.handled(by: \.playback) { interval, playback in
            .result(await playback.perform { await $0.playhead.skip(by: sign * interval) })
        }
    }

    static let seekForward: Entry = seek("seekForward", forward: true, "A held fast-forward button: beginSeeking, then endSeeking.")
    static let seekBackward: Entry = seek("seekBackward", forward: false, "A held rewind button: beginSeeking, then endSeeking.")

    private static func seek(_ name: String, forward: Bool, _ summary: String) -> Entry {
        RemoteCommand<SeekCommandType>(
            name, availability: .withSeekableItem, fields: [.choice("type", SeekCommandType.self, required: true)],
            documentation: .init(payload: "`type`: `beginSeeking` or `endSeeking` (a held button)", summary: summary)
        ) { fields, _ in try fields.requiredEnum("type", SeekCommandType.self) }
            .handled(by: \.playback) { type, playback in
                switch type {
                case .beginSeeking: .result(await playback.beginSeeking(forward: forward))
                case .endSeeking: .result(await playback.perform { await $0.playhead.endSeeking() })
                }
            }
    }

    static let changePlaybackPosition: Entry = RemoteCommand<PositionRequest>(
        "changePlaybackPosition", availability: .withSeekableItem,
        fields: [
            .init("positionTime", .number, required: true, schema: ["minimum": 0, "maximum": .number(maximumRequestSeconds)]),
            .identifier(),
        ],
        documentation: .init(
            payload: "`positionTime` (seconds, >= 0); optional `identifier`: if it is not the current item, `noSuchContent`",
            summary: "Moves to positionTime seconds; with identifier, only if that item is current (else noSuchContent).")
    ) { fields, _ in
        let position = try fields.requiredNumber("positionTime")
        guard position >= 0 else { throw CommandValidationError("'positionTime' must not be negative, got \(quote(position))") }
        try checkSeconds(position, "positionTime")
        return PositionRequest(positionTime: position, identifier: try fields.optionalString("identifier"))
    }.handled(by: \.playback) { request, playback in
        .result(await playback.perform { await $0.playhead.seek(to: request.positionTime, identifier: request.identifier) })
    }

    /// Plays the current item from the start of chapter `chapterNumber` (counting from 0, as now playing
    /// does; version 1.3).
    static let skipToChapter: Entry = RemoteCommand<Int>(
        "skipToChapter", availability: .withChapters,
        fields: [.init("chapterNumber", .number, required: true, schema: [
            "type": "integer", "minimum": 0,
            "description": "The chapter, counting from 0 as now playing's chapterNumber does; commandFailed when the current item has no such chapter, or none.",
        ])],
        documentation: .init(
            payload: "`chapterNumber` (from 0, as in now playing): plays the current item from that chapter's start (a paused item starts playing; one interrupted stays so until the interruption ends); `commandFailed` for an item without chapters or a number it has no chapter for (see Chapters)",
            summary: "Plays the current item from the start of one of its chapters (a paused item starts playing). Version 1.3.")
    ) { fields, _ in try fields.requiredCount("chapterNumber") }
        .handled(by: \.playback) { number, playback in await skip(toChapter: number, playback) }

    /// A seek the lane makes as any other, refused for an item without chapters or a chapter it does not have.
    private static func skip(toChapter number: Int, _ playback: PlaybackController) async -> CommandResult {
        guard let item = await playback.snapshot.item else {
            return CommandResult(.noActionableNowPlayingItem, message: "nothing is loaded")
        }
        guard !item.chapters.isEmpty else { return .failed("'\(item.identifier)' has no chapters") }
        guard number < item.chapters.count else {
            return .failed("'chapterNumber' must be from 0 to \(item.chapters.count - 1) for '\(item.identifier)', got \(number)")
        }
        // Named, so a seek that finds another item current (the queue moved meanwhile) is refused, not misapplied.
        let start = item.chapters[number].startTime
        let outcome = await playback.perform { await $0.playhead.seek(to: start, identifier: item.identifier) }
        guard outcome.isSuccess else { return .result(outcome) }
        // It plays from there: a paused item starts (an interruption, a phone call, is left to end by itself).
        guard await playback.snapshot.state == .paused else { return .success }
        return .result(await playback.perform { await $0.transport.play() })
    }

    static let changePlaybackRate: Entry = RemoteCommand<PlaybackRateRequest>(
        "changePlaybackRate", availability: .withItemAtHeadUnitRate,
        fields: [.init("playbackRate", .numberOr(["next"]), required: true, schema: ["exclusiveMinimum": 0])],
        documentation: .init(
            payload: "`playbackRate`: a number from `playerPlaybackRates`, or `\"next\"` to step up through `supportedPlaybackRates` and wrap (1.0 → 1.5 → 2.0 → 0.5 → 1.0); the reply's `data` is the rate now in effect, `{\"playbackRate\": 1.5}`",
            summary: "A rate from playerPlaybackRates, or \"next\" through supportedPlaybackRates (S16, S17)."),
        parameters: {
            [
                "supportedPlaybackRates": .array($0.supportedPlaybackRates.map(JSONValue.number)),
                "playerPlaybackRates": .array($0.playerPlaybackRates.map(JSONValue.number)),
            ]
        },
        // S17: hidden from head units while the rate is outside their set, yet explicit player rates still work.
        gate: { request, state, capabilities in
            guard request == .next, !capabilities.isSupportedByHeadUnit(state.currentPlaybackRate) else { return nil }
            return "changePlaybackRate \"next\" is disabled while the rate (\(state.currentPlaybackRate)) is outside "
                + "supportedPlaybackRates; send an explicit rate from playerPlaybackRates"
        }
    ) { fields, capabilities in
        guard let value = fields.payload["playbackRate"] else { throw CommandValidationError("missing field 'playbackRate'") }
        switch value {
        case let .number(rate) where rate > 0:
            guard capabilities.isAcceptedByPlayer(rate) else {
                let rates = capabilities.playerPlaybackRates.map(quote).joined(separator: ", ")
                throw CommandValidationError("playbackRate \(quote(rate)) is not one of the player's rates [\(rates)]")
            }
            return .rate(rate)
        case let .number(rate): throw CommandValidationError("'playbackRate' must be greater than 0, got \(quote(rate))")
        case .string("next"): return .next
        default: throw CommandValidationError("'playbackRate' must be a number or \"next\", got \(value.typeName)")
        }
    }.handled(by: \.playing) { request, playing in
        switch request {
        case let .rate(rate):
            return .result(await playing.controller.perform { await $0.playhead.setRate(rate) })
        case .next:
            // The rate read and the next one set in one turn: no command between them.
            let capabilities = playing.capabilities
            let (outcome, next) = await playing.controller.perform { lane -> (PlaybackOutcome, Double?) in
                guard let next = capabilities.nextSupportedRate(after: lane.playhead.rate) else {
                    return (.failed(.invalid("the current rate \(lane.playhead.rate) is not one of supportedPlaybackRates")), nil)
                }
                return (await lane.playhead.setRate(next), next)
            }
            return .result(outcome, data: next.map { ["playbackRate": .number($0)] })
        }
    }

    /// The target repeat state, never a toggle (S10); `P/commands` shows the queue's mode.
    static let changeRepeatMode: Entry = RemoteCommand<RepeatType>(
        "changeRepeatMode",
        fields: [.choice("repeatType", RepeatType.self, required: true, schema: ["$ref": "#/components/schemas/RepeatMode"])],
        documentation: .init(
            payload: "`repeatType`: `off`, `one`, `all` (the target state, never a toggle)",
            summary: "Sets the repeat mode (the target state, never a toggle)."),
        initialParameters: ["currentRepeatType": .string(RepeatType.off.rawValue)]
    ) { fields, _ in try fields.requiredEnum("repeatType", RepeatType.self) }
        .handled(by: \.playback, shown: { playback in
            ["currentRepeatType": .string((playback.latestSnapshot?.snapshot.queue.repeatMode ?? .off).rawValue)]
        }) { type, playback in .result(await playback.setRepeatMode(RepeatMode(type))) }

    /// The target shuffle state, never a toggle (S10); `P/commands` shows the queue's mode.
    static let changeShuffleMode: Entry = RemoteCommand<ShuffleType>(
        "changeShuffleMode",
        fields: [.choice("shuffleType", ShuffleType.self, required: true, schema: ["$ref": "#/components/schemas/ShuffleMode"])],
        documentation: .init(payload: "`shuffleType`: `off`, `items`, `collections` (the target state)", summary: "Sets the shuffle mode (the target state)."),
        initialParameters: ["currentShuffleType": .string(ShuffleType.off.rawValue)]
    ) { fields, _ in try fields.requiredEnum("shuffleType", ShuffleType.self) }
        .handled(by: \.playback, shown: { playback in
            ["currentShuffleType": .string((playback.latestSnapshot?.snapshot.queue.shuffleMode ?? .off).rawValue)]
        }) { type, playback in .result(await playback.setShuffleMode(ShuffleMode(type))) }

    // MARK: - Language options

    static let enableLanguageOption: Entry = languageOption("enableLanguageOption", "Selects an audio or subtitle language (BCP 47).") {
        option, playback in
        .languageResult(await playback.selectAudioStream(languageTag: option.languageTag), tag: option.languageTag)
    }

    static let disableLanguageOption: Entry = languageOption("disableLanguageOption", "Turns an audio or subtitle language off.") {
        option, playback in
        let tag = option.languageTag
        let streams = await playback.audioStreams()
        guard let stream = streams.first(where: { $0.languageTag?.lowercased() == tag.lowercased() }) else {
            return await playback.snapshot.item == nil
                ? CommandResult(.noActionableNowPlayingItem, message: "nothing is loaded")
                : .failed("no such language option: \(tag)")
        }
        guard stream.isActive else { return .success }
        // An audio stream cannot be switched off; the item falls back to its first other stream.
        guard let other = streams.first(where: { $0.index != stream.index }) else {
            return .failed("\(tag) is the item's only audio stream")
        }
        return .result(await playback.selectAudioStream(other.index))
    }

    /// Only audible options exist: subtitles (legible) are refused before `perform` sees the request.
    private static func languageOption(
        _ name: String, _ summary: String,
        perform: @escaping @Sendable (LanguageOptionRequest, PlaybackController) async -> CommandResult
    ) -> Entry {
        RemoteCommand<LanguageOptionRequest>(
            name,
            fields: [.init("languageTag", .string, required: true, schema: ["minLength": 1]), .choice("type", LanguageOptionType.self, required: true)],
            documentation: .init(payload: "`languageTag` (BCP 47), `type`: `audible` or `legible`", summary: summary)
        ) { fields, _ in
            let tag = try fields.requiredString("languageTag")
            guard !tag.isEmpty else { throw CommandValidationError("'languageTag' must not be empty") }
            return LanguageOptionRequest(languageTag: tag, type: try fields.requiredEnum("type", LanguageOptionType.self))
        }.handled(by: \.playback) { option, playback in
            guard option.type == .audible else { return .failed("no such language option: no legible (subtitle) options") }
            return await perform(option, playback)
        }
    }
}
